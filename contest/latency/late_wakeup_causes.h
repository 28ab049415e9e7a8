#pragma once
// Why a probe woke late: the time between when it should have woken
// (intended) and when it ran (the sched_switch to it), split by what had its
// CPU meanwhile, from a trace of that CPU (contest/observe/trace_events.h).
//
// The window [intended, ran] is cut into, in this order of precedence:
//   - timer expiry: from intended to the probe's timer firing (the
//     hrtimer_expire_entry of an hrtimer_wakeup just before its
//     sched_waking, on the CPU of that waking; the sched_waking itself when
//     no such entry is seen); 0, and expiry_seen false, when neither is in
//     the window;
//   - then, for every instant after it, whatever ran: a hard interrupt
//     (irq_handler, local_timer, reschedule) when one was running, the
//     innermost when they nest, so nested time counts once; else a softirq,
//     by its vector's name; else the task the CPU was running (each task by
//     pid and comm, with its class from the caller's classifier);
//   - what the trace cannot say (before its first event of that CPU, after
//     its last, between two events around a switch it lacks) is
//     unexplained, said as such and never spread over the rest.
// A line's head names the task that was running, so a switch the trace
// lacks shows (this project's VM, a PVM guest, records no sched_switch out
// of idle on some CPUs). Out of idle to a task woken there meanwhile, the
// switch came as the CPU left the wake-up's interrupt: it is put at the
// CPU's last event before the task is seen, and counted
// (inferred_switches); first_switch_to infers the probe's own the same way.
// A missed switch between two tasks leaves the gap unexplained.
// The parts are integer ns and add up to the window exactly.
//
// The CPU it waited for is the one its wake-up and moves say
// (locate_late_wakeup): its timer's until its sched_waking, then the
// sched_wakeup's target and each sched_migrate_task's destination, each
// stretch of the window split by that CPU's events. The CPU's idle task
// (pid 0) is classed idle whatever the classifier says.
//
// Use: parse the instance's trace, split it by CPU (events_by_cpu), and for
// each wake-up the probe saw late (when it should have woken, when it read
// the clock, on which CPU) find where it waited and when it ran, split it,
// and add the splits into a LateTimeByCause for the run:
//     LateTimeByCause run;
//     for (const LateWakeup& w : late) {
//         auto at = locate_late_wakeup(events, by_cpu, w.pid, w.intended_ns, w.woke_ns, w.cpu);
//         if (!at) continue;  // not in the trace
//         run.add(split_late_wakeup(by_cpu, *at, classify));
//     }
// The trace timestamps must be CLOCK_MONOTONIC's (trace_clock mono, as
// TraceInstance sets), in the µs the text gives them.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contest/observe/trace_events.h"

namespace contest::latency {

// Whose a task is, as far as the late time goes. idle is the CPU's idle
// task (pid 0, "<idle>"/"swapper"): nothing held it, it was waking up.
enum class TaskClass { workload, load, kernel_thread, contest, other, idle };
std::string_view task_class_name(TaskClass c);

// The caller's knowledge of pids (the workload's tree, the loads' groups,
// kernel threads): pid and the comm the trace gave it. Called once per task
// a split meets.
using TaskClassifier = std::function<TaskClass(pid_t pid, std::string_view comm)>;

// From at_ns the woken probe waited for `cpu`: its wake-up's target, then
// each migration's destination.
struct CpuStretch {
    std::int64_t at_ns = 0;
    int cpu = -1;
};

struct LateWakeupWindow {
    int cpu = -1;                  // where it ran
    pid_t pid = -1;                // the probe's
    std::int64_t intended_ns = 0;  // when it should have woken, CLOCK_MONOTONIC
    std::int64_t ran_ns = 0;       // when it ran: the sched_switch to it
};

// A late wake-up found in the trace: its window, and where it waited, in
// time order (the first stretch from intended_ns, on the timer's CPU).
struct LocatedWakeup {
    LateWakeupWindow window;
    std::vector<CpuStretch> path;
};

// Each CPU's events, time-sorted (events_of_cpu).
using EventsByCpu = std::map<int, std::vector<TraceEvent>>;
EventsByCpu events_by_cpu(const std::vector<TraceEvent>& events);

// Where a wake-up the probe saw late (should have woken at intended_ns,
// read the clock at woke_ns) waited and when it ran, from the trace of every
// CPU: its sched_waking's CPU (the timer's), its sched_wakeup's target, the
// sched_migrate_task that moved it after, and the sched_switch to it on the
// CPU it ended on. Without its wake-up in the trace, the first switch to it
// on any CPU. nullopt when it is not in the trace (ran after woke_ns, or
// never seen).
std::optional<LocatedWakeup> locate_late_wakeup(const std::vector<TraceEvent>& events,
                                                const EventsByCpu& by_cpu, pid_t pid,
                                                std::int64_t intended_ns, std::int64_t woke_ns,
                                                int woke_cpu);

struct NamedTime {
    std::string name;
    std::int64_t ns = 0;
};

struct TaskTime {
    std::string comm;
    pid_t pid = -1;
    TaskClass task_class = TaskClass::other;
    std::int64_t ns = 0;
};

// One stretch of a late wake-up's span, in time order: who had the CPU from
// at_ns (since it should have woken) for ns. Interrupts and softirqs are the
// innermost, as in the split; consecutive stretches of one owner are one.
struct LatePart {
    enum class Kind { timer_expiry, interrupt, softirq, task, unexplained };
    Kind kind = Kind::unexplained;
    std::int64_t at_ns = 0, ns = 0;
    std::string name;  // the interrupt's, the softirq's, the task's comm
    pid_t pid = -1;    // a task's
    TaskClass task_class = TaskClass::other;
};
std::string_view late_part_kind_name(LatePart::Kind k);

struct LateWakeupSplit {
    std::int64_t window_ns = 0;  // ran - intended
    // The CPUs it waited for, in order (more than one: it was moved).
    std::vector<int> cpus;
    std::int64_t timer_expiry_ns = 0;
    bool expiry_seen = false;
    // "irq 41 virtio3-rx", "local_timer", "reschedule": most first.
    std::vector<NamedTime> interrupts;
    // By vector name ("TIMER", "RCU", "SCHED"...): most first.
    std::vector<NamedTime> softirqs;
    // Every task that had the CPU in the window, most first.
    std::vector<TaskTime> tasks;
    std::int64_t unexplained_ns = 0;
    std::string unexplained_why;  // "" when nothing is unexplained
    // Switches out of idle the trace lacked, put where the events say.
    int inferred_switches = 0;
    // The same span as stretches in time order, back to back from 0 to
    // window_ns (a short timeline of the spike).
    std::vector<LatePart> timeline;

    // The sum of the parts: window_ns, always.
    std::int64_t parts_ns() const;
};

// The window split over its path's CPUs, each stretch by that CPU's events.
LateWakeupSplit split_late_wakeup(const EventsByCpu& by_cpu, const LocatedWakeup& late,
                                  const TaskClassifier& classify);
// On late.cpu throughout, by its events.
LateWakeupSplit split_late_wakeup(const std::vector<TraceEvent>& cpu_events,
                                  const LateWakeupWindow& late, const TaskClassifier& classify);

// When pid was next switched in on these events at or after from_ns; for
// a switch out of idle the trace lacks, when the CPU was last seen before
// pid was seen running.
std::optional<std::int64_t> first_switch_to(const std::vector<TraceEvent>& cpu_events, pid_t pid,
                                            std::int64_t from_ns);

// A run's late time by cause: the splits of its late wake-ups, summed.
struct LateTimeByCause {
    std::size_t wakeups = 0;
    int inferred_switches = 0;
    std::int64_t window_ns = 0, timer_expiry_ns = 0, unexplained_ns = 0;
    std::map<std::string, std::int64_t> interrupts, softirqs;
    std::map<TaskClass, std::int64_t> task_classes;
    // By (pid, comm): a pid reused under another name is another task.
    std::map<std::pair<pid_t, std::string>, TaskTime> tasks;

    void add(const LateWakeupSplit& split);
    // The tasks, most late time first.
    std::vector<TaskTime> tasks_by_time() const;
};

}  // namespace contest::latency
