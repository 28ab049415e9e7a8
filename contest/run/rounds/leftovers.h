#pragma once
// What a contest killed hard (SIGKILL, power) left behind, cleaned up
// before the next run starts.
#include <filesystem>
#include <vector>

#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_plan.h"

namespace contest {

// Load folders and files of dead pids in the workdir, its cgroup,
// half-written result files (<file>.json.tmp.<pid>) in the folders this run
// writes its results into. Removed, and said on stderr.
void remove_what_killed_runs_left(const RunConfig& config,
                                  const std::vector<std::filesystem::path>& result_folders);

// A start's plan, made once what a contest killed hard left is put right:
// the knobs it left changed restored first (the plan reads their values as
// the ones to put back), then, each of the plan's results folders checked,
// what remove_what_killed_runs_left removes. The start of a run, and of
// each --boot turn (a power cut mid-turn leaves them to the next turn's).
RunPlan plan_after_clean_up(const RunConfig& config);

}  // namespace contest
