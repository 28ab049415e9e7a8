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
    std::optional<std::uint64_t> seed;          // of the shuffle; unset: a random one, recorded
    std::optional<AutoRuns> auto_runs;          // --runs auto (runs is then its max_runs)
    std::vector<VarySpec> vary;                 // --vary: knobs set round by round (docs/vary.md)
    std::string vary_label = "{label},{vary}";  // --vary-label: each combination's label
};

struct RunOutcome {
    std::vector<ResultFile> results;           // one per --vary combination; one without --vary
    std::vector<std::filesystem::path> paths;  // the result files written, alike
    int failed_runs = 0;
};

// Runs everything in config. Writes the result file after every workload
// run. On Ctrl-C, saves what finished (complete: false) and rethrows
// Interrupted; loads and the workload are stopped and reaped on every path,
// and --vary's knobs restored.
RunOutcome run_suite(const RunConfig& config, Progress& progress);

// "2026-11-30T00:31:10Z"
std::string utc_timestamp();

// Drops the page cache, dentries and inodes (after sync). Returns "dropped",
// or "not dropped: <why>" when the machine won't let us.
std::string drop_caches();

}  // namespace contest
