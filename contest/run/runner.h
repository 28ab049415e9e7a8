#pragma once
// The run loop of `contest run`: for each run of each load, clean the
// workload, set the cache state, start the load and check it works, time the
// workload while sampling the load at its exact start and end, stop the
// load, and save the result file after every run.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/knobs.h"
#include "contest/run/run_order.h"
#include "contest/sys/progress.h"
#include "loads/load.h"
#include "workloads/workload.h"

namespace contest {

// --runs auto: rounds until every load's Ratio is known well enough.
struct AutoRuns {
    double target_ci_pct = 2;  // stop when the widest Ratio CI half-width is under this, in %
    unsigned max_runs = 15;    // and after this many rounds in any case
    // The widest Ratio CI half-width (in % of the Ratio) of the results so
    // far; infinity while some load's is unknown. Given by the caller (the
    // report layer knows how Ratio is estimated; the run loop does not).
    std::function<double(const ResultFile&)> widest_ci_pct;
};

// Rounds before --runs auto looks at the CIs: with fewer, a CI is a guess.
inline constexpr unsigned kMinAutoRounds = 3;

struct RunConfig {
    std::string label;
    unsigned runs = 3;
    std::vector<std::string> loads{"default"};
    WorkloadOptions workload;
    LoadOptions load;
    std::filesystem::path results_dir = "results";
    double warmup_s = 3.0;    // a load's time to get going before the workload starts
    bool drop_caches = true;  // before every run but cacherun's, where permitted
    RunOrder order = RunOrder::shuffled;
    std::optional<std::uint64_t> seed;  // of the shuffle; unset: a random one, recorded
    std::optional<AutoRuns> auto_runs;  // --runs auto (runs is then its max_runs)
    // Why a kernel is slower (issue 14): perf counters on the workload's
    // tree (--perf), and the machine sampled over its window (0: off).
    bool perf = false;
    double timeline_hz = 10;
    // --latency: the probes to run during every workload run (empty: none),
    // and the bucket width of their distribution (--latency-dist).
    std::vector<latency::ProbeOptions> latency_probes;
    std::int64_t latency_dist_ns = 1000;
    std::optional<double> timeout_s;            // --timeout: a workload run is stopped after this
    double timeout_s_value = 0;                 // as parsed, before it is known to be given
    std::filesystem::path resume;               // --resume: the interrupted result file to continue
    std::string containment;                    // how the runs' processes are held (RunContainment)
    std::vector<VarySpec> vary;                 // --vary: knobs set round by round (docs/vary.md)
    std::string vary_label = "{label},{vary}";  // --vary-label: each combination's label
};

struct RunOutcome {
    std::vector<ResultFile> results;           // one per --vary combination; one without --vary
    std::vector<std::filesystem::path> paths;  // the result files written, alike
    int failed_runs = 0;
    // Set when saving the result file failed: the suite stopped there, the
    // runs are all in `results`, the file on disk holds the last good save
    // (or does not exist when no save succeeded).
    std::string save_failure;
};

// Runs everything in config. Writes the result file after every workload
// run (not before the first: no file ever holds 0 runs). On Ctrl-C, saves
// what finished (complete: false) and rethrows Interrupted; when a save
// fails, stops the suite and returns with save_failure set; loads and the
// workload are stopped and reaped on every path, and --vary's knobs restored.
RunOutcome run_suite(const RunConfig& config, Progress& progress);

// "2026-11-30T00:31:10Z"
std::string utc_timestamp();

// Drops the page cache, dentries and inodes (after sync). Returns "dropped",
// or "not dropped: <why>" when the machine won't let us.
std::string drop_caches();

}  // namespace contest
