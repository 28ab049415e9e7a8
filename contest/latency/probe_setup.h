#pragma once
// What a probe process makes of itself before it measures: the scheduling
// policy asked for (falling back to SCHED_OTHER where the privilege is
// missing, a recorded fact and not a failure), memory locked, and 1 ns timer
// slack. Plain data: it travels to the parent in shared memory.
#include <cstdint>

#include <nlohmann/json.hpp>

#include "contest/latency/probe_options.h"

namespace contest::latency {

struct ProbeSetup {
    SchedPolicy policy = SchedPolicy::other;  // what the probe runs at
    int priority = 0;
    char policy_note[160] = {};  // why it is not what was asked, when it is not
    bool memory_locked = false;
    char lock_note[96] = {};           // why mlockall failed, when it did
    std::int64_t timer_slack_ns = -1;  // as read back from the kernel
};

// In the probe's own process: sched_setscheduler, mlockall(MCL_CURRENT |
// MCL_FUTURE) and PR_SET_TIMERSLACK 1, each where allowed.
ProbeSetup apply_probe_setup(const ProbeOptions& wanted);

// {"policy_wanted", "priority_wanted", "policy", "priority", "fallback",
// "memory_locked", "timer_slack_ns"}; "fallback" is the reason, or null.
nlohmann::json setup_json(const ProbeOptions& wanted, const ProbeSetup& got);

}  // namespace contest::latency
