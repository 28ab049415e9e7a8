#include "contest/run/rounds/leftovers.h"

#include <cstdlib>
#include <string>

#include "contest/run/plan/knobs.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/run/record/result_writer.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

// A half-written result file's or run journal's path (<file>.json.tmp.<pid>,
// <file>.run-journal.tmp.<pid>) whose pid is gone, with why it is stale;
// nothing for any other file.
std::optional<std::string> stale_result_tmp(const std::filesystem::directory_entry& e) {
    std::error_code ec;
    const std::string name = e.path().filename().string();
    std::size_t after = std::string::npos;
    for (const std::string mark : {".json.tmp.", ".run-journal.tmp."})
        if (const auto at = name.rfind(mark); at != std::string::npos) after = at + mark.size();
    if (after == std::string::npos || e.is_symlink(ec)) return std::nullopt;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + after, &end, 10);
    if (pid <= 0 || *end != '\0' || !contest_gone(static_cast<pid_t>(pid))) return std::nullopt;
    return e.path().string() + " (half-written by contest pid " + std::to_string(pid) +
           ", which is gone)";
}

}  // namespace

void remove_what_killed_runs_left(const RunConfig& config,
                                  const std::vector<std::filesystem::path>& result_folders) {
    std::vector<std::string> removed = remove_dead_load_folders(
        Workdir::opened_or_open(config.workload.opened_workdir, config.workload.workdir));
    for (auto& leaf : remove_stale_cgroups()) removed.push_back(std::move(leaf));
    std::error_code ec;
    for (const auto& folder : result_folders)
        for (const auto& e : std::filesystem::directory_iterator(folder, ec))
            if (auto what = stale_result_tmp(e); what && std::filesystem::remove(e.path(), ec))
                removed.push_back(std::move(*what));
    if (removed.empty()) return;
    for (const auto& what : removed) say("removed what a killed contest left: " + what);
}

RunPlan plan_after_clean_up(const RunConfig& config) {
    restore_knobs_left_changed(config.workload.workdir);
    RunPlan plan = make_run_plan(config);
    const std::vector<std::filesystem::path> folders = label_folders(plan.labels);
    for (const auto& folder : folders) check_results_folder(folder);
    remove_what_killed_runs_left(config, folders);
    return plan;
}

}  // namespace contest
