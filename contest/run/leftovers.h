#pragma once
// What a contest killed hard (SIGKILL, power) left behind, cleaned up
// before the next run starts.
#include <filesystem>
#include <vector>

#include "contest/run/run_loop.h"

namespace contest {

// Load folders and files of dead pids in the workdir, its cgroup,
// half-written result files (<file>.json.tmp.<pid>) in the folders this run
// writes its results into. Removed, and said on stderr.
void remove_what_killed_runs_left(const RunConfig& config,
                                  const std::vector<std::filesystem::path>& result_folders);

}  // namespace contest
