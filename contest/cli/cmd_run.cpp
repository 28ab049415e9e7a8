// `contest run [options] [LOAD...]`
#include <sys/utsname.h>

#include <cstdlib>
#include <iostream>
#include <tuple>

#include "contest/analysis/run_summary.h"
#include "contest/cli/bisection_print.h"
#include "contest/cli/boot_words.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/judging_options.h"
#include "contest/cli/load_cli.h"
#include "contest/cli/probe_setting_options.h"
#include "contest/cli/run_options.h"
#include "contest/drive/journal_continue.h"
#include "contest/latency/probe_choice.h"
#include "contest/latency/probe_table.h"
#include "contest/report/report.h"
#include "contest/run/plan/journal_life.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"
#include "loads/registry.h"
#include "workloads/kernel.h"
#include "workloads/synthetic_generator.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

namespace contest {
namespace {

// The largest values `contest run` takes: far beyond any real use, small
// enough that a slip of the keyboard cannot ask for a fork storm (--runs'
// own, kMaxRuns, is the run config's: a journal's is checked against it).
constexpr unsigned kMaxJobs = 4096;
constexpr double kMaxWarmupSeconds = 3600;
// --runs is a number or auto, so not a bounded() one: its range is said here.
const std::string kRunsValueName = "N (1 to " + std::to_string(kMaxRuns) + ", or auto)";

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

// --runs as a number of runs, or 0 for auto; UsageError for anything else.
unsigned runs_of(const std::string& runs) {
    if (runs == "auto") return 0;
    try {
        std::size_t used = 0;
        const unsigned long n = std::stoul(runs, &used);
        if (used != runs.size() || runs[0] == '-' || n < 1 || n > kMaxRuns)
            throw std::invalid_argument(runs);
        return static_cast<unsigned>(n);
    } catch (const std::logic_error&) {
        throw UsageError("'--runs' must be from 1 to " + std::to_string(kMaxRuns) +
                         " or auto, not '" + runs + "'");
    }
}

// Every name is a load, `default` or `all` (whether it can run here is
// checked later, with the load options).
void check_load_names(const std::vector<std::string>& values) {
    for (const auto& name : split_names(values)) check_load_name(name);
}

// --runs N, or auto (rounds until the widest Ratio CI reaches --target-ci,
// or with labels compared every Time's MDE --target-mde).
void set_runs(RunConfig& rc, const std::string& runs, AutoRuns auto_runs,
              const po::variables_map& vm) {
    if (vm.count("budget")) auto_runs.budget_s = parse_budget(vm["budget"].as<std::string>());
    if (vm.count("adjust")) auto_runs.adjust_outside = parse_adjust(vm["adjust"].as<std::string>());
    if (runs == "auto") {
        if (!(auto_runs.target_ci_pct > 0)) throw UsageError("--target-ci must be above 0");
        rc.runs = auto_runs.max_runs;
        rc.auto_runs = auto_runs;
        return;
    }
    rc.runs = runs_of(runs);
}

void check_label(const std::string& label) {
    if (auto why = label_problem(label)) throw UsageError("--label " + *why);
}

}  // namespace

// `contest run`'s options as parsed, before they are checked into a RunConfig.
struct RunArguments {
    RunConfig config;
    std::vector<std::string> loads;
    std::string workdir, results = "results", order, summary_json, journal;
    LoadOptionText load_text;
    bool quiet = false, no_drop = false, no_history = false;
    std::string db;  // --db: the results database sink's
    std::string runs;
    AutoRuns auto_runs;
    std::string latency, latency_method, latency_policy, latency_raw;  // --latency and its options
    bool latency_why = false;
    std::int64_t latency_why_us = 0;
    latency::ProbeSettings latency_settings;
    std::vector<std::string> vary;
    // Every place's own options (places.h), in the place table's order.
    std::vector<PlaceOptions> places;
};

namespace {

using enum OptionScope;

RunConfig parsed_run_config(RunOptions& options, const std::vector<std::string>& words);

// The place the options choose (places.h), what every place's options
// make of the config (its kernels, --kernel's or --boot's LABEL=VALUE, its
// own settings, the config a delegated turn runs) and what it does not go
// with, as the place table says: one line naming the first.
void set_place(RunArguments& a, const std::vector<TableOption>& table, const po::variables_map& vm,
               RunConfig& rc) {
    ParsedWords words;
    words.given = [&](std::string_view option) { return option_given(vm, std::string(option)); };
    words.delegated_config = [&] {
        RunOptions delegated;
        RunConfig made = parsed_run_config(delegated, delegated_words(table, vm));
        made.command_line.clear();
        return made;
    };
    rc.place = choose_place(words.given);
    const PlaceInfo& place = place_info(rc.place);
    for (const PlaceExclusion& e : place.excludes)
        if (option_given(vm, std::string(e.option), std::string(e.value)))
            throw UsageError(exclusion_text(place, e));
    for (const PlaceOptions& options : a.places)
        if (options.finish) options.finish(words, rc);
}

// --latency [PROBES] and its --latency-* options (contest latency's, prefixed):
// the guests probe as the host would, but keep no raw samples (--latency-raw).
std::vector<TableOption> latency_options(RunArguments& a) {
    const std::string default_probe(latency::probe_table().front()->name);
    // clang-format off
    std::vector<TableOption> table = {
        {"latency", delegated, po::value(&a.latency)->implicit_value(default_probe)->value_name("PROBES"),
         "latency probes during every workload run: " + latency::probe_names(",") + " (bare: " + default_probe + ")"},
        {"latency-raw", host, Needs{{"latency"}}, po::value(&a.latency_raw)->value_name("FILE"), "every sample, to FILE.LOAD.RUN.PROBE"},
        {"latency-why", host, Needs{{"latency"}}, po::bool_switch(&a.latency_why), "say what held each probe's CPU when it woke late (a tracing instance of contest's own; root, tracefs; docs/latency.md)"},
        {"latency-why-us", host, Needs{{"latency-why"}}, bounded(&a.latency_why_us, std::int64_t{1}, std::int64_t{10'000'000})->value_name("N"), "explain the wake-ups at least N us late (default: one period)"},
    };
    // clang-format on
    const ProbeSettingTargets to{&a.latency_settings, &a.latency_method, &a.latency_policy,
                                 &a.config.latency_dist_ns};
    for (TableOption& o : probe_setting_rows(to, "latency-", delegated, Needs{{"latency"}}))
        table.push_back(std::move(o));
    return table;
}

// UsageError for an option that needs its probe (the probe table's own
// options), given without it in --latency: "--latency-exec-cmd is the exec
// probe's".
void refuse_unlisted_probes_options(const std::vector<latency::ProbeOptions>& listed,
                                    const po::variables_map& vm) {
    std::vector<const latency::ProbeInfo*> chosen;
    for (const auto& o : listed) chosen.push_back(o.probe);
    const auto other =
        latency::option_of_unchosen_probe(chosen, [&](const latency::ProbeOwnOption& o) {
            return o.others.empty() && option_given(vm, "latency-" + std::string(o.name));
        });
    if (!other) return;
    const std::string probe(other->probe->name);
    throw UsageError("--latency-" + std::string(other->option->name) + " is the " + probe +
                     " probe's: add " + probe + " to --latency");
}

void check_latency_options(RunArguments& a, const po::variables_map& vm, RunConfig& rc) {
    if (a.latency.empty()) return;
    if (rc.latency_dist_ns <= 0 || rc.latency_dist_ns % 1000 != 0)
        throw UsageError("--latency-dist " + std::to_string(rc.latency_dist_ns) +
                         ": must be a positive multiple of 1000 (the histogram's 1 us)");
    using namespace latency;
    // The probes' checks name contest latency's options (--method): here
    // they are --latency-*.
    as_prefixed_option("latency-", [&] {
        ProbeSettings settings = a.latency_settings;
        settings.method = parse_sleep_method(a.latency_method);
        settings.policy = parse_sched_policy(a.latency_policy);
        rc.latency_probes = make_probe_list(a.latency, settings);
    });
    refuse_unlisted_probes_options(rc.latency_probes, vm);
    if (!a.latency_raw.empty())
        for (auto& p : rc.latency_probes) p.raw_path = a.latency_raw;
    if (a.latency_why)
        for (auto& p : rc.latency_probes)
            p.why_threshold_ns = a.latency_why_us ? a.latency_why_us * 1000 : p.period_ns;
}

// `contest run`'s options, one a line, in --help's order: each with its
// scope, which says whether every --kernel guest's contest run is given it.
std::vector<TableOption> run_option_table(RunArguments& a) {
    RunConfig& rc = a.config;
    // One option a line reads as a table; keep clang-format out of it.
    // clang-format off
    std::vector<TableOption> table = {
        {"label,k", host, checked(&rc.label, check_label)->value_name("L"), "the name rows are grouped by (default: uname -r)"},
        {"runs,n", host, checked<std::string>(&a.runs, [](const std::string& r) { runs_of(r); })->default_value("3")->value_name(kRunsValueName),
         "runs of the workload under each load; auto: rounds until every Ratio's CI is under --target-ci"},
        {"target-ci", host, Needs{{"runs=auto"}}, bounded(&a.auto_runs.target_ci_pct, 0.01, 100.0)->default_value(2)->value_name("PCT"),
         "the widest Ratio CI half-width to reach, in %"},
        {"target-mde", host, Needs{{"runs=auto"}}, bounded(&a.auto_runs.target_mde_pct, 0.01, 100.0)->default_value(5)->value_name("PCT"),
         "two or more labels: the largest Time change these runs could miss, in % (docs/report.md)"},
        {"max-runs", host, Needs{{"runs=auto"}}, bounded(&a.auto_runs.max_runs, kMinAutoRounds, kMaxRuns)->default_value(15)->value_name("N"),
         "at most this many rounds"},
        {"budget", host, Needs{{"runs=auto"}}, checked<std::string>(nullptr, [](const std::string& b) { parse_budget(b); })->value_name("TIME"),
         "no round that would end past TIME of runs (90s, 45m, 1.5h)"},
        {"adjust", host, Needs{{"runs=auto"}}, checked<std::string>(nullptr, [](const std::string& w) { parse_adjust(w); })->default_value("none")->value_name("WHAT"),
         "two or more labels: outside aims --target-mde at Time net of other processes' CPU, steal and the machine's speed (docs/noise.md)"},
        {"workload,w", delegated, checked(&rc.workload.kind, check_workload_kind)->value_name("W"),
         (workload_names(" | ", " | ") + " (default: kernel when a source is found, else synthetic)")},
        {"jobs,j", delegated, bounded(&rc.workload.jobs, 1u, kMaxJobs)->value_name("N"), "parallel jobs of the compile (default 4 x online CPUs)"},
        {"synthetic-size", delegated, bounded(&rc.workload.synthetic_size, 1u, kMaxSyntheticSize)->default_value(rc.workload.synthetic_size)->value_name("N"),
         "synthetic: translation units in the generated project"},
        {"kernel-source", delegated, po::value<std::string>()->value_name("P"),
         "kernel: tarball or tree (default: newest /usr/src/linux-source-*.tar.*)"},
        {"kernel-config", delegated, checked(&rc.workload.kernel_config, check_kernel_config)->default_value("tinyconfig")->value_name("C"),
         "kernel: tinyconfig | allnoconfig | defconfig | a .config file"},
        {"workload-cmd", delegated, po::value(&rc.workload.workload_cmd)->value_name("CMD"), "command: the timed command"},
        {"prepare-cmd", delegated, po::value(&rc.workload.prepare_cmd)->value_name("CMD"), "command: run once before all runs"},
        {"clean-cmd", delegated, po::value(&rc.workload.clean_cmd)->value_name("CMD"), "command: run before every run (untimed)"},
        {"workdir", host, po::value(&a.workdir)->value_name("D"), "scratch space (default $XDG_CACHE_HOME/contest)"},
        {"results", host, po::value(&a.results)->value_name("D"), "where result files go (default results/)"},
        {"db", host, po::value(&a.db)->value_name("FILE|URI"),
         "the results database each saved file also goes into: a SQLite file, or postgresql://USER@HOST[:PORT]/NAME "
         "(default: history.sqlite in --results; docs/history.md); its password belongs in ~/.pgpass, PGPASSFILE, "
         "PGPASSWORD or a service file: one in the URI is taken out of contest's words and passed on in PGPASSWORD, "
         "with a warning, and refused with --boot"},
        {"no-history", host, po::bool_switch(&a.no_history), "save the runs in their result files only, not in the results database"},
        {"warmup", delegated, bounded(&rc.warmup_s, 0.0, kMaxWarmupSeconds)->default_value(3.0)->value_name("S"),
         "seconds a load runs before the workload starts"},
        {"order", host, checked<std::string>(&a.order, [](const std::string& o) { parse_run_order(o); })->default_value("shuffled")->value_name("O"),
         "shuffled: rounds of a run under every load, each round in a random order; rounds: the same in "
         "contest's order; blocks: all runs under one load, then the next"},
        {"timeout", delegated, bounded(&rc.timeout_s_value, 0.001, 604800.0)->value_name("S"), "stop a workload run after S seconds (recorded as timed_out)"},
        {"resume", host, po::value<std::string>()->value_name("FILE"),
         "continue the interrupted run one of whose result files FILE is (or its journal, STAMP.run-journal beside "
         "its first label's STAMP.json), from that journal alone: its turns not done, less the runs each label's file "
         "holds, added to those files (--vary's and --kernel's runs too); no other option goes with it but --quiet"},
        {"seed", host, bounded<std::uint64_t>(nullptr, 0, UINT64_MAX)->value_name("N"), "the shuffle's seed (default: random; recorded)"},
        {"journal", host, po::value(&a.journal)->value_name("FILE"),
         "run what the run's journal FILE holds, from it alone (no other option goes with it): a turn on this host "
         "resolved by another contest (a --kernel guest's turn; docs/kernels.md), or a run of --kernel or --boot, FILE "
         "then the run's own journal: its turns planned and its result files named in it (a --boot run's FILE must be "
         "its results folder's RESULTS/.run-journal)"},
        {"no-drop-caches", delegated, po::bool_switch(&a.no_drop), "never drop caches (cacherun aside, they are dropped as root)"},
        {"settle", delegated, bounded(&rc.settle_s, 0.0, 600.0)->default_value(rc.settle_s)->value_name("S"),
         "before every run, wait at most S seconds for writeback to finish and the run queue to calm (recorded); 0: no wait"},
        {"summary-json", host, po::value(&a.summary_json)->value_name("FILE"),
         "also write a small stable JSON summary per load for engines (docs/fleet.md)"},
        {"perf", delegated, po::bool_switch(&rc.perf), "perf counters on the workload (docs/observe.md)"},
        {"timeline-hz", delegated, bounded(&rc.timeline_hz, 0.0, 1000.0)->default_value(rc.timeline_hz)->value_name("HZ"),
         "samples per second of the machine over each run (docs/observe.md); 0: none"},
        {"vary", delegated, po::value(&a.vary)->value_name("KNOB=V1,V2"),
         ("run every round under each value of a kernel setting (a path under /proc/sys or /sys, or " + knob_short_names() +
          "); twice: every combination (docs/vary.md)")},
        {"vary-label", delegated, Needs{{"vary"}}, po::value(&rc.vary_label)->default_value(rc.vary_label)->value_name("FMT"),
         "each value's label, from {label} {vary} {knob} {value} {knob2} {value2}"},
        {"quiet,q", host, po::bool_switch(&a.quiet), "no progress on stderr"},
        {"load", host, checked(&a.loads, check_load_names)->value_name("LOAD"), "loads to run (also positional)"},
    };
    // clang-format on
    // The loads' options (their values and --load-cmd's) are the guests' too.
    for (TableOption& o : load_option_rows(a.load_text, delegated)) table.push_back(std::move(o));
    for (auto& o : latency_options(a)) table.push_back(std::move(o));
    // Each place's own options (places.h), in the place table's order.
    for (const PlaceInfo* place : place_table()) {
        a.places.push_back(place->options(rc));
        for (const TableOption& o : a.places.back().rows) table.push_back(o);
    }
    return table;
}

// Checks the parsed options and fills in the defaults that depend on the machine.
RunConfig checked_run_config(RunArguments& a, const std::vector<TableOption>& table,
                             const po::variables_map& vm) {
    refuse_options_without_needs(table, vm);
    RunConfig rc = a.config;
    finish_load_options(rc.load, a.load_text);
    // An empty --label is refused like any bad one, not replaced by uname -r.
    if (!vm.count("label")) rc.label = default_label();
    check_label(rc.label);
    if (rc.workload.kind.empty())
        rc.workload.kind = kernel_source_available() ? "kernel" : "synthetic";
    if (vm.count("kernel-source"))
        rc.workload.kernel_source = vm["kernel-source"].as<std::string>();
    rc.workload.workdir = a.workdir.empty() ? default_workdir() : std::filesystem::path(a.workdir);
    rc.load.workdir = rc.workload.workdir;
    rc.results_dir = a.results;
    rc.drop_caches = !a.no_drop;
    if (a.no_history && vm.count("db"))
        throw UsageError("--no-history and --db: give one (--db names the database runs go into)");
    rc.sinks.clear();
    if (!a.no_history) rc.sinks.push_back({SinkKind::results_database, a.db});
    rc.order = parse_run_order(a.order);
    set_runs(rc, a.runs, a.auto_runs, vm);
    if (vm.count("seed")) rc.seed = vm["seed"].as<std::uint64_t>();
    if (vm.count("timeout")) rc.timeout_s = rc.timeout_s_value;
    if (vm.count("resume")) rc.resume = {vm["resume"].as<std::string>()};
    auto names = split_names(a.loads);
    rc.loads = names.empty() ? std::vector<std::string>{"default"} : names;
    check_latency_options(a, vm, rc);
    for (const auto& v : a.vary) rc.vary.push_back(parse_vary(v));
    set_place(a, table, vm, rc);
    return rc;
}

}  // namespace

RunOptions::RunOptions() : arguments_(std::make_unique<RunArguments>()) {
    cl_.name = "run";
    cl_.usage = "contest run [options] [LOAD...]";
    cl_.summary =
        "Times the workload with no load and under each LOAD (names, `default` or `all`; see\n"
        "`contest loads`), --runs times each, saves every measurement in a result file and\n"
        "prints the contest table.";
    cl_.accepts_config = true;
    table_ = run_option_table(*arguments_);
    add_options(cl_, table_);
    cl_.positional.add("load", -1);
}

RunOptions::~RunOptions() = default;

bool RunOptions::parse(int argc, char** argv) {
    return parse_command_line(cl_, argc, argv, vm_);
}

bool RunOptions::parse_words(const std::vector<std::string>& words) {
    std::vector<std::string> argv = {"run"};
    argv.insert(argv.end(), words.begin(), words.end());
    std::vector<char*> pointers;
    for (auto& w : argv) pointers.push_back(w.data());
    return parse(static_cast<int>(pointers.size()), pointers.data());
}

namespace {

// Words after "run" parsed into options and checked as its command line
// would be, the config carrying them as its command line.
RunConfig parsed_run_config(RunOptions& options, const std::vector<std::string>& words) {
    if (!options.parse_words(words)) throw UsageError("contest run: --help is no run");
    RunConfig config = checked_run_config(options.arguments(), options.table(), options.values());
    config.command_line = {"run"};
    config.command_line.insert(config.command_line.end(), words.begin(), words.end());
    return config;
}

}  // namespace

RunConfig run_config_of(const std::vector<std::string>& words) {
    RunOptions options;
    return parsed_run_config(options, words);
}

RunJournal boot_batch_journal_of(const std::vector<std::string>& words) {
    RunOptions options;
    const RunConfig parsed = parsed_run_config(options, words);
    RunJournal journal;
    life_of(options.arguments().places, parsed.place).keep_own(journal);
    if (!journal.boot) throw UsageError("contest run: these words are no --boot run");
    journal.started_at = utc_timestamp();
    journal.config = run_config_of(boot_run_words(options));
    return journal;
}

namespace {

// UsageError when an option other than `alone` (and --quiet, which says
// how much is said, not what runs) is given: `alone` names a run whose
// journal holds everything else.
void refuse_beside(const RunOptions& options, const std::string& alone) {
    for (const auto& [name, value] : options.values()) {
        if (name == alone || name == "quiet" || value.defaulted()) continue;
        throw UsageError("--" + alone + " goes alone (the journal holds the run): " +
                         (name == "load" ? std::string("the loads") : "--" + name) + " given too");
    }
}

// --journal FILE: the run it holds, alone, nothing of it parsed from words,
// its life its place's made of the journal. A run on this host is a
// --kernel guest's turn, its config resolved by the host's contest, which
// keeps the run's journal; a run of a place of kernels is started from the
// journal alone, FILE its journal (its turns planned, its results named there).
std::shared_ptr<PlaceLife> journal_run(RunOptions& options, LifeStart& start) {
    refuse_beside(options, "journal");
    const std::string& file = options.arguments().journal;
    const RunJournal journal = read_run_journal(file);
    // A run's own journal, which plans its turns, goes on with --resume.
    if (!journal.turns.list.empty() || journal.boot_run)
        throw UsageError("--journal " + printable(file) +
                         ": a run's own journal (it plans turns): continue it with --resume");
    start = LifeStart{};
    start.config = journal.config;
    if (place_info(journal.config.place).option.empty())
        start.keep_journal = false;
    else
        start.journal = file;
    return life_of_journal(journal);
}

// --resume X: the journal of the run it continues (the interrupted result
// file's, or X itself), alone: nothing of it parsed from words or read from
// a --config file (run_driver.h). An option a place excludes is named with
// the place first, as every run's check says it.
LifeAsked resumed_run(RunOptions& options, const RunConfig& parsed) {
    check_place(parsed);
    refuse_beside(options, "resume");
    return {LifeVerb::advance, parsed.resume.front()};
}

// What a verb's step leaves said: the table, a failed save, where the
// results went and the summary for engines; its exit code.
int printed(const LifeStep& step, const RunArguments& arguments, Progress& progress) {
    progress.clear();
    if (!step.finished.empty() && !step.finished.front().runs.empty())
        std::cout << render_report(step.finished, ReportOptions{}) << std::flush;
    if (!step.save_failure.empty()) {
        std::size_t finished = 0;
        for (const auto& r : step.finished) finished += r.runs.size();
        say("stopped: saving the results failed: " + step.save_failure);
        say("the " + std::to_string(finished) +
            " finished runs are in the table above; the result files hold the last good save, "
            "where one was made");
        return step.exit_code;
    }
    if (!step.finished.empty() && !step.finished.front().stopped_because.empty())
        say("--runs auto stopped: " + step.finished.front().stopped_because);
    if (!arguments.quiet)
        for (const auto& path : step.saved) say("results saved in " + path.string());
    if (!arguments.summary_json.empty() && !step.saved.empty())
        write_run_summary(arguments.summary_json, step.finished.front(), step.saved.front());
    return step.exit_code;
}

}  // namespace

// The words ask a verb of a place's life (place_life.h): --journal's turn
// and --resume's run go on here; a place's own options may ask one of its
// own (--boot-status); else the place they chose starts the run.
int cmd_run(int argc, char** argv) {
    RunOptions options;
    if (!options.parse(argc, argv)) return kExitOk;
    RunArguments& arguments = options.arguments();
    RunConfig rc = checked_run_config(arguments, options.table(), options.values());
    rc.command_line.assign(argv, argv + argc);  // argv[0] is "run"
    PlaceLife* life = &life_of(arguments.places, rc.place);
    LifeAsked asked;
    LifeStart start;
    start.config = rc;
    start.resolved_for_root = [&] { return run_config_of(boot_run_words(options)); };
    std::shared_ptr<PlaceLife> of_journal;  // --journal's
    if (!arguments.journal.empty()) {
        life = (of_journal = journal_run(options, start)).get();
    } else if (!rc.resume.empty()) {
        asked = resumed_run(options, rc);
    } else if (auto own = asked_life(arguments.places)) {
        std::tie(life, asked) = std::move(*own);
    } else {
        // As its journal keeps them: --resume reads them from any folder.
        make_paths_absolute(start.config);
    }
    if (asked.verb == LifeVerb::status) return life->status(arguments.results);
    if (asked.verb == LifeVerb::abort) return life->abort(arguments.results);
    Progress progress = Progress::for_stderr(arguments.quiet);
    const LifeStep step = asked.verb == LifeVerb::advance ? life->advance(asked.journal, progress)
                                                          : life->start(start, progress);
    const int exit_code = printed(step, arguments, progress);
    // A run another journal owns (a bisection's --boot part) that ended:
    // its owner goes on, in this contest (drive/journal_continue.h).
    if (!step.owner.empty())
        if (const auto driven = drive::continue_owner(step.owner, step.containment, progress))
            print_bisection(*driven, step.owner, progress);
    return exit_code;
}

}  // namespace contest
