#pragma once
// The events of a tracefs `trace` file, read from its text: the scheduler,
// interrupt and timer events that say who had a CPU when (what
// contest/latency/late_wakeup_causes.h attributes a late wake-up from).
//
// A line of `trace` is
//     <comm>-<pid> [<cpu>] <flags> <seconds>.<fraction>: <event>: <fields>
// (the comm right-aligned in 16 columns; header lines start with '#', and a
// buffer that overwrote its oldest events says "CPU:N [LOST M EVENTS]").
// The text is not trusted: a comm is any 15 bytes a process chose
// (prctl(PR_SET_NAME)), spaces, brackets, "==>" and "field=" included. So
// the line's head is found by its shape (a " [cpu] " followed by the flags,
// a timestamp and an event name, the first place all of them fit), and
// sched_switch is split at its " ==> next_comm=" where both halves parse
// into their known fields, each half read from its right end (the numbers
// that end it) towards the comm that starts it. What cannot be read is
// skipped and counted, never thrown: parse_trace takes any bytes.
//
// Use: TraceInstance::read() (trace_instance.h) gives the text;
// parse_trace(text) the events, in the file's order (each CPU's own in time
// order); events_of_cpu picks one CPU's for the attribution.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace contest {

enum class TraceEventKind {
    sched_waking,
    sched_wakeup,
    sched_switch,
    irq_handler_entry,
    irq_handler_exit,
    softirq_entry,
    softirq_exit,
    local_timer_entry,
    local_timer_exit,
    reschedule_entry,
    reschedule_exit,
    hrtimer_expire_entry,
    sched_process_fork,
    sched_migrate_task,
};

// "sched_switch" for sched_switch: the event's name in the trace (without
// its system); nullopt for a name not among the kinds.
std::optional<TraceEventKind> trace_event_kind(std::string_view name);
std::string_view trace_event_name(TraceEventKind kind);

struct TraceEvent {
    TraceEventKind kind{};
    int cpu = -1;
    std::int64_t ts_ns = 0;  // the trace clock's time (mono: CLOCK_MONOTONIC)
    // The task that was current on the CPU (the interrupted one, for an
    // interrupt's events), from the line's head.
    std::string task_comm;
    pid_t task_pid = -1;

    // sched_switch: the task that leaves the CPU and the one that gets it;
    // prev_state as printed ("R", "R+", "S", "D|K", ...).
    std::string prev_comm, prev_state, next_comm;
    pid_t prev_pid = -1, next_pid = -1;
    // sched_waking, sched_wakeup: the woken task and where it will run;
    // sched_migrate_task: the task moved, from orig_cpu to dest_cpu.
    std::string comm;
    pid_t pid = -1;
    int target_cpu = -1;
    int orig_cpu = -1, dest_cpu = -1;
    // irq_handler_entry/exit: the irq's number (and, at entry, its name);
    // local_timer and reschedule: the vector's number, in irq.
    int irq = -1;
    std::string irq_name;
    // softirq_entry/exit: the vector's number and name ("TIMER", "RCU", ...).
    int vec = -1;
    std::string vec_name;
    // hrtimer_expire_entry: the timer's base time in ns and its callback
    // ("hrtimer_wakeup" for a sleeping task's).
    std::int64_t hrtimer_now_ns = 0;
    std::string hrtimer_function;
    // sched_process_fork: the parent (in comm, pid) and the child, so that a
    // task can be told to be the workload's by its line of forks.
    std::string child_comm;
    pid_t child_pid = -1;
};

struct ParsedTrace {
    std::vector<TraceEvent> events;
    // Lines that are not '#' headers and could not be read as an event of a
    // known kind with its fields (garbage, a truncated line, a kind this
    // parser does not know). Blank lines count neither way.
    std::size_t skipped_lines = 0;
    // Events the kernel said it dropped ("[LOST M EVENTS]" lines, summed).
    std::uint64_t lost_events = 0;
};

// Every readable event of the text; never throws on its content.
ParsedTrace parse_trace(std::string_view text);

// One line (without its newline); nullopt when it is not a readable event.
std::optional<TraceEvent> parse_trace_line(std::string_view line);

// The events on cpu, in the order given, time-sorted (stable) in case the
// text interleaved them.
std::vector<TraceEvent> events_of_cpu(const std::vector<TraceEvent>& events, int cpu);

}  // namespace contest
