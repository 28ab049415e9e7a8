#pragma once
// A run's timeline as one self-contained SVG: stacked panels over time, one
// per signal the sampler recorded (CPU, pressure stalls, disk, memory, dirty
// and writeback, and wakeup latency when present), with the workload's
// start and end marked across all of them. Drawn from TimelineSampler's JSON.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace contest {

// Throws UsageError when `timeline` has no "t_s" array or no "columns".
std::string timeline_svg(const nlohmann::json& timeline, const std::string& title);

// Runs side by side (`contest report --timeline --load`): each run's
// picture as timeline_svg draws it, one column each, under one title. Each
// column keeps its own scales. Throws UsageError when `runs` is empty.
std::string timeline_svg_side_by_side(
    const std::vector<std::pair<nlohmann::json, std::string>>& runs, const std::string& title);

}  // namespace contest
