#include "contest/latency/late_wakeup_causes.h"

#include <algorithm>
#include <array>

#include "contest/sys/enum_names.h"

namespace contest::latency {
namespace {

constexpr std::array<EnumName<TaskClass>, 6> kTaskClassNames{{
    {TaskClass::workload, "workload"},
    {TaskClass::load, "load"},
    {TaskClass::kernel_thread, "kernel thread"},
    {TaskClass::contest, "contest"},
    {TaskClass::other, "other"},
    {TaskClass::idle, "idle"},
}};

constexpr std::array<EnumName<LatePart::Kind>, 5> kLatePartKindNames{{
    {LatePart::Kind::timer_expiry, "timer expiry"},
    {LatePart::Kind::interrupt, "irq"},
    {LatePart::Kind::softirq, "softirq"},
    {LatePart::Kind::task, "task"},
    {LatePart::Kind::unexplained, "unexplained"},
}};

// Interrupts nest a few deep at most; a trace whose exits were lost must not
// grow the stack without end.
constexpr std::size_t kMaxNesting = 16;

struct Running {
    std::string comm;
    pid_t pid = -1;
};

// What the CPU is doing at a moment, as the events so far say.
// What a line's head says of a switch the trace did not record.
enum class MissedSwitch { none, from_idle, unknown };

struct CpuState {
    std::optional<Running> task;
    std::vector<std::pair<TraceEventKind, std::string>> hardirqs;  // entry kind, name
    std::vector<std::string> softirqs;
    // Tasks woken to run here since the last switch.
    std::vector<pid_t> woken;

    // Every line's head names the task that was current (the interrupted
    // one, in an interrupt). One that is not the task the events so far put
    // there means a switch the trace lacks (this project's VM records no
    // sched_switch out of idle on some CPUs): out of idle to a task woken
    // here meanwhile, it came as the CPU left the wake-up's interrupt, so at
    // the CPU's last event before this one; any other, at a time unknown.
    MissedSwitch missed_before(const TraceEvent& e) const {
        if (!task || task->pid == e.task_pid) return MissedSwitch::none;
        const bool woken_here = std::find(woken.begin(), woken.end(), e.task_pid) != woken.end();
        return task->pid == 0 && woken_here ? MissedSwitch::from_idle : MissedSwitch::unknown;
    }

    void apply(const TraceEvent& e) {
        task = Running{e.task_comm, e.task_pid};
        switch (e.kind) {
            case TraceEventKind::sched_switch:
                task = Running{e.next_comm, e.next_pid};
                woken.clear();
                break;
            case TraceEventKind::sched_waking:
            case TraceEventKind::sched_wakeup:
                if (e.target_cpu == e.cpu && woken.size() < kMaxNesting * 4) woken.push_back(e.pid);
                break;
            case TraceEventKind::irq_handler_entry:
                enter(e.kind, "irq " + std::to_string(e.irq) + " " + e.irq_name);
                break;
            case TraceEventKind::local_timer_entry:
                enter(e.kind, "local_timer");
                break;
            case TraceEventKind::reschedule_entry:
                enter(e.kind, "reschedule");
                break;
            case TraceEventKind::irq_handler_exit:
                leave(TraceEventKind::irq_handler_entry);
                break;
            case TraceEventKind::local_timer_exit:
                leave(TraceEventKind::local_timer_entry);
                break;
            case TraceEventKind::reschedule_exit:
                leave(TraceEventKind::reschedule_entry);
                break;
            case TraceEventKind::softirq_entry:
                if (softirqs.size() < kMaxNesting) softirqs.push_back(e.vec_name);
                break;
            case TraceEventKind::softirq_exit:
                if (!softirqs.empty()) softirqs.pop_back();
                break;
            default:
                break;
        }
    }

    void enter(TraceEventKind kind, std::string name) {
        if (hardirqs.size() < kMaxNesting) hardirqs.emplace_back(kind, std::move(name));
    }
    // Back to where that kind of interrupt was entered: an exit whose
    // entry came before the trace (or was lost) changes nothing.
    void leave(TraceEventKind entry_kind) {
        for (auto i = hardirqs.size(); i-- > 0;)
            if (hardirqs[i].first == entry_kind) {
                hardirqs.resize(i);
                return;
            }
    }
};

// The span's time by owner, and the same in time order (from: when the
// probe should have woken).
struct Tally {
    explicit Tally(std::int64_t from) : from(from) {}
    std::int64_t from;
    std::map<std::string, std::int64_t> interrupts, softirqs;
    std::map<std::pair<pid_t, std::string>, std::int64_t> tasks;
    std::int64_t unexplained = 0;
    std::vector<LatePart> timeline;

    // [at, at + ns) went to what the state says has the CPU.
    void add(const CpuState& state, std::int64_t at, std::int64_t ns) {
        if (ns <= 0) return;
        if (!state.hardirqs.empty()) {
            interrupts[state.hardirqs.back().second] += ns;
            part(LatePart::Kind::interrupt, state.hardirqs.back().second, -1, at, ns);
        } else if (!state.softirqs.empty()) {
            softirqs[state.softirqs.back()] += ns;
            part(LatePart::Kind::softirq, state.softirqs.back(), -1, at, ns);
        } else if (state.task) {
            tasks[{state.task->pid, state.task->comm}] += ns;
            part(LatePart::Kind::task, state.task->comm, state.task->pid, at, ns);
        } else {
            add_unexplained(at, ns);
        }
    }
    void add_unexplained(std::int64_t at, std::int64_t ns) {
        if (ns <= 0) return;
        unexplained += ns;
        part(LatePart::Kind::unexplained, "", -1, at, ns);
    }
    void part(LatePart::Kind kind, const std::string& name, pid_t pid, std::int64_t at,
              std::int64_t ns) {
        if (!timeline.empty()) {
            LatePart& last = timeline.back();
            if (last.kind == kind && last.name == name && last.pid == pid &&
                last.at_ns + last.ns == at - from) {
                last.ns += ns;
                return;
            }
        }
        LatePart p;
        p.kind = kind;
        p.at_ns = at - from;
        p.ns = ns;
        p.name = name;
        p.pid = pid;
        timeline.push_back(std::move(p));
    }
};

std::vector<NamedTime> most_first(const std::map<std::string, std::int64_t>& times) {
    std::vector<NamedTime> out;
    for (const auto& [name, ns] : times) out.push_back({name, ns});
    std::stable_sort(out.begin(), out.end(),
                     [](const NamedTime& a, const NamedTime& b) { return a.ns > b.ns; });
    return out;
}

void sort_most_first(std::vector<TaskTime>& tasks) {
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const TaskTime& a, const TaskTime& b) { return a.ns > b.ns; });
}

std::string us_text(std::int64_t ns) {
    return std::to_string(ns / 1000) + " µs";
}

bool before_ns(const TraceEvent& e, std::int64_t t) {
    return e.ts_ns < t;
}

// The first event in [from, to] of any CPU that `is` says is the one: its
// CPU and time; nullopt when none is.
template <class Predicate>
std::optional<std::pair<int, std::int64_t>> first_on_any_cpu(const EventsByCpu& by_cpu,
                                                             std::int64_t from, std::int64_t to,
                                                             Predicate is) {
    std::optional<std::pair<int, std::int64_t>> first;
    for (const auto& [cpu, events] : by_cpu) {
        const auto begin = std::lower_bound(events.begin(), events.end(), from, before_ns);
        for (auto it = begin; it != events.end() && it->ts_ns <= to; ++it)
            if (is(*it)) {
                if (!first || it->ts_ns < first->second) first = {cpu, it->ts_ns};
                break;
            }
    }
    return first;
}

// The probe's first sched_waking in [from, to] (the timer's CPU records it).
std::optional<std::pair<int, std::int64_t>> waking_of(const EventsByCpu& by_cpu, pid_t pid,
                                                      std::int64_t from, std::int64_t to) {
    return first_on_any_cpu(by_cpu, from, to, [pid](const TraceEvent& e) {
        return e.kind == TraceEventKind::sched_waking && e.pid == pid;
    });
}

// When the probe's timer fired: the hrtimer_wakeup expiry nearest before its
// first sched_waking in [from, to] (on the waking's CPU), or that waking;
// nullopt when it is not there.
std::optional<std::int64_t> expiry_of(const EventsByCpu& by_cpu, pid_t pid, std::int64_t from,
                                      std::int64_t to) {
    const auto waking = waking_of(by_cpu, pid, from, to);
    if (!waking) return std::nullopt;
    const auto& events = by_cpu.at(waking->first);
    const auto begin = std::lower_bound(events.begin(), events.end(), from, before_ns);
    const auto it = std::lower_bound(begin, events.end(), waking->second, before_ns);
    for (auto back = it; back != begin;) {
        --back;
        if (back->kind == TraceEventKind::hrtimer_expire_entry) {
            if (back->hrtimer_function == "hrtimer_wakeup") return back->ts_ns;
            break;
        }
    }
    return waking->second;
}

// [cursor, to) of one CPU into the tally, by what its events say had it;
// the cursor (where the tally is) moves to `to`. window_from: the wake-up's
// intended time, for the texts; a switch inferred after count_after counts.
void tally_cpu(const std::vector<TraceEvent>& cpu_events, int cpu, std::int64_t window_from,
               std::int64_t count_after, std::int64_t& cursor, std::int64_t to, Tally& tally,
               LateWakeupSplit& split, std::vector<std::string>& why) {
    if (cursor >= to) return;
    const std::string cpu_name = "CPU " + std::to_string(cpu);
    if (cpu_events.empty() || cpu_events.front().ts_ns >= to) {
        tally.add_unexplained(cursor, to - cursor);
        why.push_back("the trace has no events of " + cpu_name + " up to " +
                      us_text(to - window_from) + " into the window");
        cursor = to;
        return;
    }
    if (cpu_events.front().ts_ns > cursor) {
        tally.add_unexplained(cursor, cpu_events.front().ts_ns - cursor);
        why.push_back("the trace of " + cpu_name + " begins " +
                      us_text(cpu_events.front().ts_ns - cursor) + " into the window");
        cursor = cpu_events.front().ts_ns;
    }
    CpuState state;
    bool reached_end = false;
    int missed_switches = 0;
    for (const auto& e : cpu_events) {
        if (e.ts_ns >= to) {
            reached_end = true;
            break;
        }
        const MissedSwitch missed = state.missed_before(e);
        if (missed == MissedSwitch::from_idle) {
            state.task = Running{e.task_comm, e.task_pid};
            if (e.ts_ns > count_after) ++split.inferred_switches;
        } else if (missed == MissedSwitch::unknown && e.ts_ns > cursor) {
            if (missed_switches++ == 0)
                why.push_back("the trace lacks the switch from " + state.task->comm + " to " +
                              e.task_comm + " before " + us_text(e.ts_ns - window_from) +
                              " into the window");
            state.task.reset();  // the gap since the last event is unexplained
        }
        if (e.ts_ns > cursor) {
            tally.add(state, cursor, e.ts_ns - cursor);
            cursor = e.ts_ns;
        }
        state.apply(e);
    }
    if (missed_switches > 1)
        why.back() += " (and " + std::to_string(missed_switches - 1) + " more)";
    if (reached_end) {
        tally.add(state, cursor, to - cursor);
    } else {
        tally.add_unexplained(cursor, to - cursor);
        why.push_back("the trace of " + cpu_name + " ends " + us_text(to - cursor) +
                      " before the wake-up ran");
    }
    cursor = to;
}

}  // namespace

std::string_view task_class_name(TaskClass c) {
    return name_in(kTaskClassNames, c);
}

std::string_view late_part_kind_name(LatePart::Kind k) {
    return name_in(kLatePartKindNames, k);
}

std::int64_t LateWakeupSplit::parts_ns() const {
    std::int64_t sum = timer_expiry_ns + unexplained_ns;
    for (const auto& part : interrupts) sum += part.ns;
    for (const auto& part : softirqs) sum += part.ns;
    for (const auto& task : tasks) sum += task.ns;
    return sum;
}

LateWakeupSplit split_late_wakeup(const EventsByCpu& by_cpu, const LocatedWakeup& located,
                                  const TaskClassifier& classify) {
    const LateWakeupWindow& late = located.window;
    LateWakeupSplit split;
    const std::int64_t from = late.intended_ns, to = std::max(late.ran_ns, late.intended_ns);
    split.window_ns = to - from;
    std::int64_t cursor = from;
    if (const auto expiry = expiry_of(by_cpu, late.pid, from, to)) {
        split.expiry_seen = true;
        // The trace's µs may put the expiry a fraction before the intended ns.
        cursor = std::clamp(*expiry, from, to);
        split.timer_expiry_ns = cursor - from;
    }

    Tally tally(from);
    if (split.timer_expiry_ns > 0)
        tally.part(LatePart::Kind::timer_expiry, "", -1, from, split.timer_expiry_ns);
    std::vector<CpuStretch> path = located.path;
    if (path.empty()) path.push_back({from, late.cpu});
    static const std::vector<TraceEvent> kNone;
    std::vector<std::string> why;
    for (std::size_t i = 0; i < path.size(); ++i) {
        const std::int64_t stretch_end =
            i + 1 < path.size() ? std::clamp(path[i + 1].at_ns, from, to) : to;
        const auto it = by_cpu.find(path[i].cpu);
        if (split.cpus.empty() || split.cpus.back() != path[i].cpu)
            split.cpus.push_back(path[i].cpu);
        tally_cpu(it != by_cpu.end() ? it->second : kNone, path[i].cpu, from,
                  i == 0 ? from : cursor, cursor, stretch_end, tally, split, why);
    }

    split.interrupts = most_first(tally.interrupts);
    split.softirqs = most_first(tally.softirqs);
    for (const auto& [key, ns] : tally.tasks) {
        // The idle task is the same everywhere, whatever the classifier knows.
        const TaskClass cls = key.first == 0 ? TaskClass::idle
                              : classify     ? classify(key.first, key.second)
                                             : TaskClass::other;
        split.tasks.push_back({key.second, key.first, cls, ns});
    }
    for (LatePart& part : tally.timeline)
        if (part.kind == LatePart::Kind::task)
            for (const auto& task : split.tasks)
                if (task.pid == part.pid && task.comm == part.name)
                    part.task_class = task.task_class;
    split.timeline = std::move(tally.timeline);
    sort_most_first(split.tasks);
    split.unexplained_ns = tally.unexplained;
    for (const auto& w : why)
        split.unexplained_why += (split.unexplained_why.empty() ? "" : "; ") + w;
    return split;
}

LateWakeupSplit split_late_wakeup(const std::vector<TraceEvent>& cpu_events,
                                  const LateWakeupWindow& late, const TaskClassifier& classify) {
    return split_late_wakeup(EventsByCpu{{late.cpu, cpu_events}}, LocatedWakeup{late, {}},
                             classify);
}

EventsByCpu events_by_cpu(const std::vector<TraceEvent>& events) {
    EventsByCpu out;
    for (const auto& e : events) out[e.cpu].push_back(e);
    for (auto& [cpu, mine] : out)
        std::stable_sort(mine.begin(), mine.end(), [](const TraceEvent& a, const TraceEvent& b) {
            return a.ts_ns < b.ts_ns;
        });
    return out;
}

std::optional<LocatedWakeup> locate_late_wakeup(const std::vector<TraceEvent>& events,
                                                const EventsByCpu& by_cpu, pid_t pid,
                                                std::int64_t intended_ns, std::int64_t woke_ns,
                                                int woke_cpu) {
    LocatedWakeup located;
    LateWakeupWindow& w = located.window;
    std::vector<CpuStretch>& path = located.path;
    w.pid = pid;
    w.intended_ns = intended_ns;
    // The trace's µs truncate: an event at the intended ns may print a µs before.
    const std::int64_t from = intended_ns - 1000;
    // The probe's wake-up and moves in time order, across the CPUs.
    std::vector<const TraceEvent*> moves;
    for (const auto& e : events) {
        if (e.ts_ns < from || e.ts_ns > woke_ns || e.pid != pid) continue;
        if (e.kind == TraceEventKind::sched_waking || e.kind == TraceEventKind::sched_wakeup ||
            e.kind == TraceEventKind::sched_migrate_task)
            moves.push_back(&e);
    }
    std::stable_sort(moves.begin(), moves.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return a->ts_ns < b->ts_ns; });
    const auto waking = std::find_if(moves.begin(), moves.end(), [](const TraceEvent* e) {
        return e->kind == TraceEventKind::sched_waking;
    });
    if (waking != moves.end()) {
        // Until it is woken, the timer's CPU (its interrupt wakes it); then
        // where it is to run, as each later event of its says.
        path.push_back({intended_ns, (*waking)->cpu});
        for (auto it = waking; it != moves.end(); ++it) {
            const TraceEvent& e = **it;
            const int cpu =
                e.kind == TraceEventKind::sched_migrate_task ? e.dest_cpu : e.target_cpu;
            if (cpu < 0 || cpu == path.back().cpu) continue;
            path.push_back({e.ts_ns, cpu});
        }
        // It ran on the first stretch's CPU that switched to it within it
        // (a move after it ran is not the wait's).
        for (std::size_t i = 0; i < path.size(); ++i) {
            const auto it = by_cpu.find(path[i].cpu);
            if (it == by_cpu.end()) continue;
            const auto ran = first_switch_to(it->second, pid, std::max(path[i].at_ns, from));
            const bool last = i + 1 == path.size();
            if (!ran || *ran > woke_ns || (!last && *ran >= path[i + 1].at_ns)) continue;
            path.resize(i + 1);
            w.cpu = path.back().cpu;
            w.ran_ns = std::max(*ran, intended_ns);
            return located;
        }
        return std::nullopt;
    }
    // No wake-up in the trace: where it was first switched in.
    auto first = first_on_any_cpu(by_cpu, from, woke_ns, [pid](const TraceEvent& e) {
        return e.kind == TraceEventKind::sched_switch && e.next_pid == pid;
    });
    if (!first) {
        // Its switch in may be one the trace lacks: on the CPU it woke on.
        const auto it = by_cpu.find(woke_cpu);
        const auto ran =
            it != by_cpu.end() ? first_switch_to(it->second, pid, intended_ns) : std::nullopt;
        if (!ran || *ran > woke_ns) return std::nullopt;
        first = {woke_cpu, *ran};
    }
    // A CPU whose trace begins after the wake-up was due: overwritten.
    const auto& ran_on = by_cpu.at(first->first);
    if (ran_on.front().ts_ns > intended_ns) return std::nullopt;
    w.cpu = first->first;
    w.ran_ns = std::max(first->second, intended_ns);
    return located;
}

std::optional<std::int64_t> first_switch_to(const std::vector<TraceEvent>& cpu_events, pid_t pid,
                                            std::int64_t from_ns) {
    const TraceEvent* before = nullptr;
    for (const auto& e : cpu_events) {
        if (e.ts_ns >= from_ns) {
            if (e.kind == TraceEventKind::sched_switch && e.next_pid == pid) return e.ts_ns;
            // Running without its switch in the trace: it came after the
            // CPU's last event before this one (see CpuState).
            if (e.task_pid == pid) return std::max(before ? before->ts_ns : e.ts_ns, from_ns);
        }
        before = &e;
    }
    return std::nullopt;
}

void LateTimeByCause::add(const LateWakeupSplit& split) {
    ++wakeups;
    inferred_switches += split.inferred_switches;
    window_ns += split.window_ns;
    timer_expiry_ns += split.timer_expiry_ns;
    unexplained_ns += split.unexplained_ns;
    for (const auto& part : split.interrupts) interrupts[part.name] += part.ns;
    for (const auto& part : split.softirqs) softirqs[part.name] += part.ns;
    for (const auto& task : split.tasks) {
        task_classes[task.task_class] += task.ns;
        auto [it, fresh] = tasks.try_emplace({task.pid, task.comm}, task);
        if (!fresh) it->second.ns += task.ns;
    }
}

std::vector<TaskTime> LateTimeByCause::tasks_by_time() const {
    std::vector<TaskTime> out;
    for (const auto& [key, task] : tasks) out.push_back(task);
    sort_most_first(out);
    return out;
}

}  // namespace contest::latency
