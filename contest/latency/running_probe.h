#pragma once
// One probe, running: a forked worker (its own process group, killed if
// contest dies) with the probe's shared block, and the window contest opens
// and closes on it. Stopped and reaped when this goes out of scope, on every
// path.
#include <sys/types.h>

#include <optional>
#include <string>

#include "contest/latency/probe_options.h"
#include "contest/latency/probe_result.h"
#include "contest/latency/probe_shared.h"
#include "contest/latency/work_calibration.h"
#include "contest/sys/forked_worker.h"
#include "contest/sys/unique_fd.h"

namespace contest::latency {

class RunningProbe {
  public:
    // Forks the probe and waits until it has set itself up (policy, memory
    // lock, timer slack) and scheduled its first period. calibration is
    // needed by audio and video. Throws EnvironmentError with the probe's
    // reason when it does not start, UsageError when the raw file cannot be
    // opened.
    RunningProbe(const ProbeOptions& options, const std::optional<WorkCalibration>& calibration);
    RunningProbe(const RunningProbe&) = delete;
    RunningProbe& operator=(const RunningProbe&) = delete;

    // The window starts at at_ns (CLOCK_MONOTONIC, normally now): periods
    // intended from then on count.
    void open_window(std::int64_t at_ns);
    // The window ends at at_ns (normally now): periods intended from then on
    // do not count. Returns at once; wait_closed() waits for the probe.
    void end_window(std::int64_t at_ns);
    // Waits until the probe has accounted every period intended before the
    // end (at most 10 s and two periods: past that the probe is stopped and
    // the result marked incomplete).
    void wait_closed();
    // The window's result; call after wait_closed.
    ProbeResult result() const;

    // Why the probe is not running any more, or nullopt while it is.
    std::optional<std::string> failure() const;
    pid_t pgid() const { return worker_.pgid(); }

  private:
    ProbeOptions options_;
    std::optional<WorkCalibration> calibration_;
    std::uint64_t chunks_;
    UniqueFd raw_fd_;  // the raw file, until the probe has its own copy
    ForkedWorker<ProbeShared> worker_;
    std::int64_t opened_ns_ = 0, closed_ns_ = 0;
    bool complete_ = true;
};

}  // namespace contest::latency
