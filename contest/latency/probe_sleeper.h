#pragma once
// Sleeping until an absolute CLOCK_MONOTONIC time, by each of stress-ng's
// cyclic methods. Every method aims at the same absolute deadline, so the
// schedule never drifts by the time the probe spends awake.
#include <time.h>

#include <cstdint>

#include "contest/latency/probe_options.h"

namespace contest::latency {

// CLOCK_MONOTONIC now, in ns.
std::int64_t monotonic_ns();

class ProbeSleeper {
  public:
    // itimer creates its POSIX timer (signal SIGRTMIN, blocked and taken with
    // sigwaitinfo, so no handler runs) here; throws EnvironmentError if it
    // cannot.
    explicit ProbeSleeper(SleepMethod method);
    ~ProbeSleeper();
    ProbeSleeper(const ProbeSleeper&) = delete;
    ProbeSleeper& operator=(const ProbeSleeper&) = delete;

    // Returns at or after `deadline_ns` (CLOCK_MONOTONIC):
    //   clock_ns  clock_nanosleep(TIMER_ABSTIME), as cyclictest;
    //   posix_ns  nanosleep for what is left (relative, as POSIX offers);
    //   itimer    timer_settime(TIMER_ABSTIME) then wait for its signal;
    //   poll      spin on clock_gettime (burns a CPU; no sleep at all).
    void until(std::int64_t deadline_ns);

  private:
    SleepMethod method_;
    timer_t timer_{};
    bool has_timer_ = false;
};

}  // namespace contest::latency
