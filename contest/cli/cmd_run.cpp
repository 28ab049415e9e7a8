// `contest run [options] [LOAD...]`
#include <sys/utsname.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/sys/errors.h"
#include "contest/cli/load_cli.h"
#include "contest/report/report.h"
#include "contest/run/runner.h"
#include "contest/run/summary.h"

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
        if (name.rfind("linux-source-", 0) == 0 && name.find(".tar.") != std::string::npos)
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

}  // namespace

int cmd_run(int argc, char** argv) {
    RunConfig rc;
    std::vector<std::string> loads;
    std::string workdir, results = "results", summary_json;
    LoadOptionText load_text;
    bool quiet = false, no_drop = false;
    std::string order;

    CommandLine cl;
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
        ("runs,n", po::value(&rc.runs)->default_value(3)->value_name("N"), "runs of the workload under each load")
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
        ("workdir", po::value(&workdir)->value_name("D"), "scratch space (default $XDG_CACHE_HOME/contest)")
        ("results", po::value(&results)->value_name("D"), "where result files go (default results/)")
        ("warmup", po::value(&rc.warmup_s)->default_value(3.0)->value_name("S"),
         "seconds a load runs before the workload starts")
        ("order", po::value(&order)->default_value("shuffled")->value_name("O"),
         "shuffled: rounds of a run under every load, each round in a random order; rounds: the same in "
         "contest's order; blocks: all runs under one load, then the next")
        ("seed", po::value<std::uint64_t>()->value_name("N"), "the shuffle's seed (default: random; recorded)")
        ("no-drop-caches", po::bool_switch(&no_drop), "never drop caches (cacherun aside, they are dropped as root)")
        ("summary-json", po::value(&summary_json)->value_name("FILE"),
         "also write a small stable JSON summary per load for engines (docs/fleet.md)")
        ("quiet,q", po::bool_switch(&quiet), "no progress on stderr")
        ("load", po::value(&loads)->value_name("LOAD"), "loads to run (also positional)");
    // clang-format on
    add_load_options(cl.options, rc.load, load_text);
    cl.positional.add("load", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;

    finish_load_options(rc.load, load_text);
    if (rc.label.empty()) rc.label = default_label();
    if (rc.workload.kind.empty())
        rc.workload.kind = kernel_source_available() ? "kernel" : "synthetic";
    if (vm.count("kernel-source"))
        rc.workload.kernel_source = vm["kernel-source"].as<std::string>();
    rc.workload.workdir = workdir.empty() ? default_workdir() : std::filesystem::path(workdir);
    rc.load.workdir = rc.workload.workdir;
    rc.results_dir = results;
    rc.drop_caches = !no_drop;
    rc.order = parse_run_order(order);
    if (vm.count("seed")) rc.seed = vm["seed"].as<std::uint64_t>();
    if (rc.warmup_s < 0) throw UsageError("--warmup must be >= 0");
    auto names = split_load_names(loads);
    rc.loads = names.empty() ? std::vector<std::string>{"default"} : names;
    std::error_code ec;
    std::filesystem::create_directories(rc.workload.workdir, ec);
    if (ec)
        throw EnvironmentError("cannot create workdir " + rc.workload.workdir.string() + ": " +
                               ec.message());

    Progress progress = Progress::for_stderr(quiet);
    RunOutcome out = run_contest(rc, progress);
    std::cout << render_report({out.result}, ReportOptions{}) << std::flush;
    if (!quiet) std::cerr << "contest: results saved in " << out.path.string() << "\n";
    if (!summary_json.empty()) write_run_summary(summary_json, out.result, out.path);
    return out.failed_runs > 0 ? kExitSomeRunsFailed : kExitOk;
}

}  // namespace contest
