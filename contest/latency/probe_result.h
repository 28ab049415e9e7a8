#pragma once
// One probe's result over one window: what it was asked, what it got, the
// latency statistics, the probe's own CPU use and, for audio and video, the
// CPU share it wanted against the share it got.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/latency/late_wakeups.h"
#include "contest/latency/latency_stats.h"
#include "contest/latency/probe_options.h"
#include "contest/latency/probe_setup.h"
#include "contest/latency/work_calibration.h"

namespace contest::latency {

struct ProbeResult {
    ProbeOptions options;
    ProbeSetup setup;
    std::optional<WorkCalibration> calibration;  // audio, video
    std::uint64_t chunks_per_period = 0;
    LatencyStats stats;
    double window_s = 0;  // as contest opened and closed it
    // The probe process's CPU (getrusage) from its first period in the window
    // to its last: the probe's cost to the machine.
    std::optional<double> cpu_user_s, cpu_sys_s, cpu_pct;
    // True when the probe accounted every period of the window; false when
    // it had to be stopped first (it could not run for 10 s) or died.
    bool complete = true;
    std::optional<std::string> failure;
    // With --latency-why: the window's wake-ups at least `late_threshold_ns`
    // late (the worst kept when there were more), and how many there were.
    std::int64_t late_threshold_ns = 0;
    std::uint64_t late_seen = 0;
    std::vector<LateWakeup> late;

    // Percent of one CPU the periods asked for, and what they got done
    // (work done / work asked x wanted). None for cyclic.
    std::optional<double> share_wanted_pct() const;
    std::optional<double> share_got_pct() const;
    // Deadlines missed as a percent of the window's periods.
    std::optional<double> missed_pct() const;

    nlohmann::json to_json() const;
};

}  // namespace contest::latency
