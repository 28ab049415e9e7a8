#pragma once
// `contest latency`'s window as a person reads it: one probe's figures
// over the window (its sched, the samples, mean, mode, min, max, sd,
// percentiles, deadlines missed, CPU share and frames, its own CPU, then
// the distribution), what held its CPU when it woke late (--why) and the
// load beside it; as text lines in the spirit of stress-ng's cyclic
// stressor, or as one JSON object. Rendered through the outputs table
// (outputs.h, OutputUse::latency: contest latency --format).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "contest/latency/probe_result.h"

namespace contest {

struct LatencyWindowModel {
    latency::ProbeResult probe;
    std::int64_t dist_ns = 1000;  // --dist: the distribution's bucket width
    nlohmann::json why;           // --why: the probe's late time by cause; null without
    // --load: the load beside the probe, its CPU use and failure.
    struct Load {
        std::string name;
        double cpu_pct = 0;
        std::optional<std::string> failure;
    };
    std::optional<Load> load;
};

// "cyclic: sched other, method clock_ns, period 1000000 ns, window 10.00 s",
// a line a figure, then the distribution (at most 100 rows) and --why's lines.
std::string latency_window_text(const LatencyWindowModel& window);
// The probe's result (ProbeResult::to_json) with "why" and "load" added.
std::string latency_window_json(const LatencyWindowModel& window);

}  // namespace contest
