#include "contest/latency/probe_setup.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace contest::latency {

ProbeSetup apply_probe_setup(const ProbeOptions& wanted) {
    ProbeSetup got;
    if (wanted.policy != SchedPolicy::other) {
        int policy = wanted.policy == SchedPolicy::fifo ? SCHED_FIFO : SCHED_RR;
        sched_param param{};
        param.sched_priority = wanted.priority;
        if (::sched_setscheduler(0, policy, &param) == 0) {
            got.policy = wanted.policy;
            got.priority = wanted.priority;
        } else {
            // EPERM: no CAP_SYS_NICE and RLIMIT_RTPRIO below the priority, or
            // no real-time runtime in this cgroup. The probe still measures,
            // as an ordinary task, and says so.
            std::snprintf(got.policy_note, sizeof got.policy_note,
                          "sched_setscheduler(%s, %d): %s; running as other",
                          std::string(name_of(wanted.policy)).c_str(), wanted.priority,
                          std::strerror(errno));
        }
    }
    if (::mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
        got.memory_locked = true;
    else
        std::snprintf(got.lock_note, sizeof got.lock_note, "mlockall: %s", std::strerror(errno));
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    got.timer_slack_ns = slack;
    return got;
}

nlohmann::json setup_json(const ProbeOptions& wanted, const ProbeSetup& got) {
    nlohmann::json j = {{"policy_wanted", name_of(wanted.policy)},
                        {"priority_wanted", wanted.priority},
                        {"policy", name_of(got.policy)},
                        {"priority", got.priority},
                        {"fallback", nullptr},
                        {"memory_locked", got.memory_locked},
                        {"timer_slack_ns", got.timer_slack_ns}};
    if (got.policy_note[0]) j["fallback"] = got.policy_note;
    if (got.lock_note[0]) j["memory_lock_error"] = got.lock_note;
    return j;
}

}  // namespace contest::latency
