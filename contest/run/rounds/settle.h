#pragma once
// Before each run, a short wait for the machine to settle: the previous
// run's writeback finished and the run queue calm (the previous run's load
// and workload are already reaped by then). Bounded: on a machine other
// people use, the queue may never calm, and the wait says so instead.
#include <functional>
#include <string>

namespace contest {

struct Settled {
    double waited_s = 0;
    std::string state;  // "settled", or why not: "not settled after 10 s: 2.4 tasks runnable"
};

// Dirty plus Writeback pages under this are writeback finished.
inline constexpr double kSettledDirtyMiB = 32;

// What settle_machine looks at, sampled every 50 ms.
struct MachineSample {
    double dirty_mib = 0;        // Dirty plus Writeback
    double others_runnable = 0;  // runnable tasks other than contest
};
// This machine's, from /proc/meminfo and /proc/stat.
MachineSample sample_machine();

// Waits at most max_s (0: not at all, state "off") until writeback has
// finished and, over the last half second (under a shorter max_s, over the
// samples it has room for, at least one), at most half the CPUs (and at
// least one) had a runnable task other than contest. Throws Interrupted.
Settled settle_machine(double max_s, const std::function<MachineSample()>& sample = sample_machine);

}  // namespace contest
