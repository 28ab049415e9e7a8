// `contest run [options] [LOAD...]`
#include <sys/utsname.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/report/report.h"
#include "contest/report/report_model.h"
#include "contest/run/runner.h"
#include "contest/run/summary.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

std::string default_label() {
    struct utsname u {};
    ::uname(&u);
    return u.release;
}

bool kernel_source_available() {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/src", ec)) {
        auto name = e.path().filename().string();
        if (name.starts_with("linux-source-") && name.find(".tar.") != std::string::npos)
            return true;
    }
    return false;
}

// Loads may come as several words in one value (`load = no_load cpu_load` in
// a config file, or "a,b" on the command line).
std::vector<std::string> split_load_names(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (auto v : values) {
        for (char& c : v)
            if (c == ',') c = ' ';
        std::istringstream in(v);
        std::string w;
        while (in >> w) out.push_back(w);
    }
    return out;
}

// --runs N, or auto (rounds until the widest Ratio CI reaches --target-ci).
void set_runs(RunConfig& rc, const std::string& runs, AutoRuns auto_runs) {
    if (runs == "auto") {
        if (!(auto_runs.target_ci_pct > 0)) throw UsageError("--target-ci must be above 0");
        if (auto_runs.max_runs < kMinAutoRounds)
            throw UsageError("--max-runs must be at least " + std::to_string(kMinAutoRounds));
        auto_runs.widest_ci_pct = widest_ratio_ci_pct;
        rc.runs = auto_runs.max_runs;
        rc.auto_runs = auto_runs;
        return;
    }
    try {
        std::size_t used = 0;
        const unsigned long n = std::stoul(runs, &used);
        if (used != runs.size() || n > 100000) throw std::invalid_argument(runs);
        rc.runs = static_cast<unsigned>(n);
    } catch (const std::logic_error&) {
        throw UsageError("--runs '" + runs + "': expected a number or auto");
    }
}

// `contest run`'s options as parsed, before they are checked into a RunConfig.
struct RunArguments {
    RunConfig config;
    std::vector<std::string> loads;
    std::string workdir, results = "results", order, summary_json;
    LoadOptionText load_text;
    bool quiet = false, no_drop = false;
    std::string runs;
    AutoRuns auto_runs;
    std::vector<std::string> vary;
};

void describe_run_options(CommandLine& cl, RunArguments& a) {
    RunConfig& rc = a.config;
    cl.name = "run";
    cl.usage = "contest run [options] [LOAD...]";
    cl.summary =
        "Times the workload with no load and under each LOAD (names, `default` or `all`; see\n"
        "`contest loads`), --runs times each, saves every measurement in a result file and\n"
        "prints the contest table.";
    cl.accepts_config = true;
    // One option a line reads as a table; keep clang-format out of it.
    // clang-format off
    cl.options.add_options()
        ("label,k", po::value(&rc.label)->value_name("L"), "the name rows are grouped by (default: uname -r)")
        ("runs,n", po::value(&a.runs)->default_value("3")->value_name("N"),
         "runs of the workload under each load; auto: rounds until every Ratio's CI is under --target-ci")
        ("target-ci", po::value(&a.auto_runs.target_ci_pct)->default_value(2)->value_name("PCT"),
         "--runs auto: the widest Ratio CI half-width to reach, in %")
        ("max-runs", po::value(&a.auto_runs.max_runs)->default_value(15)->value_name("N"),
         "--runs auto: at most this many rounds")
        ("workload,w", po::value(&rc.workload.kind)->value_name("W"),
         "synthetic | kernel | command (default: kernel when a source is found, else synthetic)")
        ("jobs,j", po::value(&rc.workload.jobs)->value_name("N"), "parallel jobs of the compile (default 4 x online CPUs)")
        ("synthetic-size", po::value(&rc.workload.synthetic_size)->default_value(rc.workload.synthetic_size)->value_name("N"),
         "synthetic: translation units in the generated project")
        ("kernel-source", po::value<std::string>()->value_name("P"),
         "kernel: tarball or tree (default: newest /usr/src/linux-source-*.tar.*)")
        ("kernel-config", po::value(&rc.workload.kernel_config)->default_value("tinyconfig")->value_name("C"),
         "kernel: tinyconfig | allnoconfig | defconfig | a .config file")
        ("workload-cmd", po::value(&rc.workload.workload_cmd)->value_name("CMD"), "command: the timed command")
        ("prepare-cmd", po::value(&rc.workload.prepare_cmd)->value_name("CMD"), "command: run once before all runs")
        ("clean-cmd", po::value(&rc.workload.clean_cmd)->value_name("CMD"), "command: run before every run (untimed)")
        ("workdir", po::value(&a.workdir)->value_name("D"), "scratch space (default $XDG_CACHE_HOME/contest)")
        ("results", po::value(&a.results)->value_name("D"), "where result files go (default results/)")
        ("warmup", po::value(&rc.warmup_s)->default_value(3.0)->value_name("S"),
         "seconds a load runs before the workload starts")
        ("order", po::value(&a.order)->default_value("shuffled")->value_name("O"),
         "shuffled: rounds of a run under every load, each round in a random order; rounds: the same in "
         "contest's order; blocks: all runs under one load, then the next")
        ("seed", po::value<std::uint64_t>()->value_name("N"), "the shuffle's seed (default: random; recorded)")
        ("no-drop-caches", po::bool_switch(&a.no_drop), "never drop caches (cacherun aside, they are dropped as root)")
        ("summary-json", po::value(&a.summary_json)->value_name("FILE"),
         "also write a small stable JSON summary per load for engines (docs/fleet.md)")
        ("vary", po::value(&a.vary)->value_name("KNOB=V1,V2"),
         ("run every round under each value of a kernel setting (a path, or " + knob_short_names() +
          "); twice: every combination (docs/vary.md)").c_str())
        ("vary-label", po::value(&rc.vary_label)->default_value(rc.vary_label)->value_name("FMT"),
         "--vary: each value's label, from {label} {vary} {knob} {value} {knob2} {value2}")
        ("quiet,q", po::bool_switch(&a.quiet), "no progress on stderr")
        ("load", po::value(&a.loads)->value_name("LOAD"), "loads to run (also positional)");
    // clang-format on
    add_load_options(cl.options, rc.load, a.load_text);
    cl.positional.add("load", -1);
}

// Checks the parsed options and fills in the defaults that depend on the machine.
RunConfig checked_run_config(RunArguments& a, const po::variables_map& vm) {
    RunConfig rc = a.config;
    finish_load_options(rc.load, a.load_text);
    if (rc.label.empty()) rc.label = default_label();
    if (rc.workload.kind.empty())
        rc.workload.kind = kernel_source_available() ? "kernel" : "synthetic";
    if (vm.count("kernel-source"))
        rc.workload.kernel_source = vm["kernel-source"].as<std::string>();
    rc.workload.workdir = a.workdir.empty() ? default_workdir() : std::filesystem::path(a.workdir);
    rc.load.workdir = rc.workload.workdir;
    rc.results_dir = a.results;
    rc.drop_caches = !a.no_drop;
    rc.order = parse_run_order(a.order);
    set_runs(rc, a.runs, a.auto_runs);
    if (vm.count("seed")) rc.seed = vm["seed"].as<std::uint64_t>();
    if (rc.warmup_s < 0) throw UsageError("--warmup must be >= 0");
    auto names = split_load_names(a.loads);
    rc.loads = names.empty() ? std::vector<std::string>{"default"} : names;
    for (const auto& v : a.vary) rc.vary.push_back(parse_vary(v));
    return rc;
}

}  // namespace

int cmd_run(int argc, char** argv) {
    RunArguments arguments;
    CommandLine cl;
    describe_run_options(cl, arguments);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    const RunConfig rc = checked_run_config(arguments, vm);
    std::error_code ec;
    std::filesystem::create_directories(rc.workload.workdir, ec);
    if (ec)
        throw EnvironmentError("cannot create workdir " + rc.workload.workdir.string() + ": " +
                               ec.message());

    Progress progress = Progress::for_stderr(arguments.quiet);
    RunOutcome out = run_suite(rc, progress);
    std::cout << render_report(out.results, ReportOptions{}) << std::flush;
    if (!arguments.quiet)
        for (const auto& path : out.paths)
            std::cerr << "contest: results saved in " << path.string() << "\n";
    if (!arguments.summary_json.empty())
        write_run_summary(arguments.summary_json, out.results.front(), out.paths.front());
    return out.failed_runs > 0 ? kExitSomeRunsFailed : kExitOk;
}

}  // namespace contest
