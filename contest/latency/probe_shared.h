#pragma once
// The memory a probe process shares with contest (MAP_SHARED, mapped before
// the fork, like loads/load.h's LoadCounters).
//
// Windows by time, not by copying: contest publishes the window's start and
// end as CLOCK_MONOTONIC times, and the probe counts a period into the window
// when the period's *intended* wake time lies in [start, end). Once the probe
// has seen the end and accounted every period before it, it writes its last
// CPU mark, sets `closed` (release) and writes nothing more; contest reads
// the counts after seeing `closed` (acquire). Compared with cumulative counts
// that contest copies at start and end and subtracts, this gives the window's
// exact min, max and standard deviation (a difference of two cumulative
// histograms cannot), costs no 880 KB copy while the workload runs, and
// cannot tear: the probe is the only writer and has stopped before contest
// reads. The price: one window per probe process, which is what a workload
// run needs (probes start and stop with the run's load). The edges are as
// exact as their publication: a period intended in the nanoseconds between
// contest reading the clock and storing the time can land on the wrong side.
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include "contest/latency/late_wakeups.h"
#include "contest/latency/probe_setup.h"
#include "contest/latency/window_counts.h"

namespace contest::latency {

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

// The probe's CPU use (getrusage) at the window's first and last period.
struct CpuMark {
    bool taken = false;
    std::int64_t at_ns = 0;  // CLOCK_MONOTONIC
    double user_s = 0, sys_s = 0;
};

struct ProbeShared {
    // contest -> probe.
    std::atomic<std::int64_t> window_start_ns{kNever};
    std::atomic<std::int64_t> window_end_ns{kNever};
    // probe -> contest. `ready` once setup is filled in and the first period
    // is scheduled; `closed` once the window's counts are final.
    std::atomic<bool> ready{false};
    std::atomic<bool> closed{false};
    ProbeSetup setup;
    CpuMark cpu_open, cpu_close;
    WindowCounts window;
    // contest sets the threshold before the fork; the probe keeps the
    // window's wake-ups at least that late.
    LateWakeups late;
    // A probe that gives up writes why here before exiting non-zero.
    char error[512] = {};
    void fail(const std::string& why);
};
static_assert(std::atomic<std::int64_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "shared between processes: must be lock-free");

}  // namespace contest::latency
