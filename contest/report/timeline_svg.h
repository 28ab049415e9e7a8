#pragma once
// A run's timeline as one self-contained SVG: stacked panels over time, one
// per signal the sampler recorded (CPU, pressure stalls, disk, memory, dirty
// and writeback, and wakeup latency when present), with the workload's
// start and end marked across all of them. Drawn from TimelineSampler's JSON.
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

// Throws UsageError when `timeline` has no "t_s" array or no "columns".
std::string timeline_svg(const nlohmann::json& timeline, const std::string& title);

}  // namespace contest
