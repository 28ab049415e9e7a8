#pragma once
// The run loop of `contest run`: for each run of each load, clean the
// workload, set the cache state, start the load and check it works, time the
// workload while sampling the load at its exact start and end, stop the
// load, and save the result file after every run.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/progress.h"
#include "contest/result_file.h"
#include "loads/load.h"
#include "workloads/workload.h"

namespace contest {

// The order of the runs. rounds: one run under every load, then the next
// round, so a machine that drifts (host neighbours, heat, a filling disk)
// spreads the drift over every load alike instead of onto one load's block.
// blocks: all runs under one load, then the next load, as the 2002 contest.
enum class RunOrder { rounds, blocks };

// "rounds" -> RunOrder::rounds; anything else is a UsageError.
RunOrder parse_run_order(const std::string& name);
const char* run_order_name(RunOrder order);

struct RunConfig {
    std::string label;
    unsigned runs = 3;
    std::vector<std::string> loads{"default"};
    WorkloadOptions workload;
    LoadOptions load;
    std::filesystem::path results_dir = "results";
    double warmup_s = 3.0;    // a load's time to get going before the workload starts
    bool drop_caches = true;  // before every run but cacherun's, where permitted
    RunOrder order = RunOrder::rounds;
};

struct RunOutcome {
    ResultFile result;
    std::filesystem::path path;  // the result file written
    int failed_runs = 0;
};

// Runs everything in config. Writes the result file after every workload
// run. On Ctrl-C, saves what finished (complete: false) and rethrows
// Interrupted; loads and the workload are stopped and reaped on every path.
RunOutcome run_contest(const RunConfig& config, Progress& progress);

// "2026-11-30T00:31:10Z"
std::string utc_timestamp();

// Drops the page cache, dentries and inodes (after sync). Returns "dropped",
// or "not dropped: <why>" when the machine won't let us.
std::string drop_caches();

}  // namespace contest
