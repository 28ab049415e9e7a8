// The attribution of a late wake-up (contest/latency/late_wakeup_causes.h):
// on hand-made events, and on a real trace of a real sleeper whose late
// wake-ups a real culprit causes (a SCHED_FIFO spinner on the sleeper's CPU).
// The real case needs root and tracefs mounted; without them it is skipped,
// not passed. The bounds are wide: this VM's timings jump by milliseconds.
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "contest/latency/late_wakeup_causes.h"
#include "contest/observe/trace_events.h"
#include "contest/observe/trace_instance.h"
#include "contest/sys/forked_worker.h"
#include "contest/sys/text_file.h"
#include "test_helpers.h"
#include "trace_test_support.h"

using namespace contest;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kMicros = 1000;

TraceEvent cpu1_event(TraceEventKind kind, std::int64_t ts_us, const std::string& comm, pid_t pid) {
    TraceEvent e;
    e.kind = kind;
    e.cpu = 1;
    e.ts_ns = ts_us * kMicros;
    e.task_comm = comm;
    e.task_pid = pid;
    return e;
}

TraceEvent switch_event(std::int64_t ts_us, const std::string& prev, pid_t prev_pid,
                        const std::string& next, pid_t next_pid) {
    TraceEvent e = cpu1_event(TraceEventKind::sched_switch, ts_us, prev, prev_pid);
    e.prev_comm = prev;
    e.prev_pid = prev_pid;
    e.prev_state = "R";
    e.next_comm = next;
    e.next_pid = next_pid;
    return e;
}

const latency::TaskTime* task_named(const std::vector<latency::TaskTime>& tasks,
                                    const std::string& comm) {
    for (const auto& t : tasks)
        if (t.comm == comm) return &t;
    return nullptr;
}

std::int64_t named(const std::vector<latency::NamedTime>& parts, const std::string& name) {
    for (const auto& p : parts)
        if (p.name == name) return p.ns;
    return 0;
}

// The timeline covers the span back to back, in order, and adds up to it.
void check_timeline(const latency::LateWakeupSplit& split) {
    std::int64_t at = 0;
    for (const auto& part : split.timeline) {
        CHECK(part.at_ns == at);
        CHECK(part.ns > 0);
        at += part.ns;
    }
    CHECK(at == split.window_ns);
}

latency::TaskClass no_class(pid_t, std::string_view) {
    return latency::TaskClass::other;
}

TraceEvent waking_of(std::int64_t ts_us, const std::string& comm, pid_t pid,
                     const std::string& woken, pid_t woken_pid) {
    TraceEvent e = cpu1_event(TraceEventKind::sched_waking, ts_us, comm, pid);
    e.comm = woken;
    e.pid = woken_pid;
    e.target_cpu = 1;
    return e;
}

// A sleeping task's timer expiring, as hrtimer_expire_entry.
TraceEvent wakeup_expiry(std::int64_t ts_us, const std::string& comm, pid_t pid) {
    TraceEvent e = cpu1_event(TraceEventKind::hrtimer_expire_entry, ts_us, comm, pid);
    e.hrtimer_function = "hrtimer_wakeup";
    return e;
}

}  // namespace

TEST_CASE("a late wake-up's window is split by what had the CPU, net of nesting", "[late_wakeup]") {
    // The probe (pid 100) sleeps to 1000 µs; its timer fires at 1010 µs
    // inside a local timer interrupt that interrupted a spinner (pid 200),
    // which keeps the CPU; an irq nests in a softirq; at 1500 µs the probe
    // runs.
    std::vector<TraceEvent> events;
    events.push_back(switch_event(900, "probe", 100, "spinner", 200));
    events.push_back(cpu1_event(TraceEventKind::local_timer_entry, 1005, "spinner", 200));
    events.push_back(wakeup_expiry(1010, "spinner", 200));
    events.push_back(waking_of(1011, "spinner", 200, "probe", 100));
    events.push_back(cpu1_event(TraceEventKind::local_timer_exit, 1020, "spinner", 200));
    TraceEvent soft = cpu1_event(TraceEventKind::softirq_entry, 1020, "spinner", 200);
    soft.vec_name = "TIMER";
    events.push_back(soft);
    TraceEvent irq = cpu1_event(TraceEventKind::irq_handler_entry, 1030, "spinner", 200);
    irq.irq = 41;
    irq.irq_name = "virtio3-rx";
    events.push_back(irq);
    events.push_back(cpu1_event(TraceEventKind::irq_handler_exit, 1045, "spinner", 200));
    TraceEvent soft_exit = cpu1_event(TraceEventKind::softirq_exit, 1060, "spinner", 200);
    soft_exit.vec_name = "TIMER";
    events.push_back(soft_exit);
    events.push_back(switch_event(1300, "spinner", 200, "kworker/1:0", 7));
    events.push_back(switch_event(1500, "kworker/1:0", 7, "probe", 100));
    events.push_back(switch_event(1600, "probe", 100, "spinner", 200));

    const latency::TaskClassifier classify = [](pid_t pid, std::string_view) {
        return pid == 200 ? latency::TaskClass::load
               : pid == 7 ? latency::TaskClass::kernel_thread
                          : latency::TaskClass::other;
    };
    const auto ran = latency::first_switch_to(events, 100, 1000 * kMicros);
    REQUIRE(ran == 1500 * kMicros);
    const latency::LateWakeupWindow late{1, 100, 1000 * kMicros, *ran};
    const latency::LateWakeupSplit split = latency::split_late_wakeup(events, late, classify);

    CHECK(split.window_ns == 500 * kMicros);
    CHECK(split.parts_ns() == split.window_ns);
    CHECK(split.expiry_seen);
    CHECK(split.timer_expiry_ns == 10 * kMicros);
    // The local timer from the expiry to its exit; the irq's 15 µs not in
    // the softirq's 40.
    CHECK(named(split.interrupts, "local_timer") == 10 * kMicros);
    CHECK(named(split.interrupts, "irq 41 virtio3-rx") == 15 * kMicros);
    CHECK(named(split.softirqs, "TIMER") == 25 * kMicros);
    const latency::TaskTime* spinner = task_named(split.tasks, "spinner");
    REQUIRE(spinner);
    CHECK(spinner->pid == 200);
    CHECK(spinner->task_class == latency::TaskClass::load);
    CHECK(spinner->ns == 240 * kMicros);  // 1060 to 1300
    const latency::TaskTime* kworker = task_named(split.tasks, "kworker/1:0");
    REQUIRE(kworker);
    CHECK(kworker->task_class == latency::TaskClass::kernel_thread);
    CHECK(kworker->ns == 200 * kMicros);
    CHECK(split.tasks.front().comm == "spinner");
    CHECK(split.unexplained_ns == 0);
    CHECK(split.unexplained_why.empty());
    // The same, in time order: who held the CPU from when to when.
    check_timeline(split);
    using K = latency::LatePart::Kind;
    const std::vector<std::tuple<K, std::string, std::int64_t>> expected = {
        {K::timer_expiry, "", 0},     {K::interrupt, "local_timer", 10},
        {K::softirq, "TIMER", 20},    {K::interrupt, "irq 41 virtio3-rx", 30},
        {K::softirq, "TIMER", 45},    {K::task, "spinner", 60},
        {K::task, "kworker/1:0", 300}};
    REQUIRE(split.timeline.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("part " << i);
        CHECK(split.timeline[i].kind == std::get<0>(expected[i]));
        CHECK(split.timeline[i].name == std::get<1>(expected[i]));
        CHECK(split.timeline[i].at_ns == std::get<2>(expected[i]) * kMicros);
    }
    CHECK(split.timeline[5].pid == 200);
    CHECK(split.timeline[5].task_class == latency::TaskClass::load);
    CHECK(split.timeline[6].task_class == latency::TaskClass::kernel_thread);

    SECTION("a trace that begins inside the window leaves the start unexplained") {
        const std::vector<TraceEvent> later(events.begin() + 9, events.end());  // from 1300 µs
        const latency::LateWakeupSplit part = latency::split_late_wakeup(later, late, classify);
        CHECK(part.parts_ns() == part.window_ns);
        CHECK_FALSE(part.expiry_seen);
        CHECK(part.timer_expiry_ns == 0);
        CHECK(part.unexplained_ns == 300 * kMicros);
        CHECK_THAT(part.unexplained_why, Catch::Contains("begins 300 µs into the window"));
        REQUIRE(part.tasks.size() == 1);
        CHECK(part.tasks[0].comm == "kworker/1:0");
        CHECK(part.tasks[0].ns == 200 * kMicros);
        check_timeline(part);
        CHECK(part.timeline.front().kind == latency::LatePart::Kind::unexplained);
    }
    SECTION("a trace that ends before the probe ran leaves the end unexplained") {
        const std::vector<TraceEvent> earlier(events.begin(), events.begin() + 10);  // to 1300 µs
        const latency::LateWakeupSplit part = latency::split_late_wakeup(earlier, late, classify);
        CHECK(part.parts_ns() == part.window_ns);
        CHECK(part.unexplained_ns == 200 * kMicros);
        CHECK_THAT(part.unexplained_why, Catch::Contains("ends 200 µs before"));
        check_timeline(part);
        CHECK(part.timeline.back().kind == latency::LatePart::Kind::unexplained);
    }
    SECTION("no events at all: all of it unexplained") {
        const latency::LateWakeupSplit part = latency::split_late_wakeup({}, late, classify);
        CHECK(part.unexplained_ns == part.window_ns);
        CHECK(part.parts_ns() == part.window_ns);
        CHECK(part.tasks.empty());
        check_timeline(part);
    }
    SECTION("a run's total sums the splits") {
        latency::LateTimeByCause run;
        run.add(split);
        run.add(split);
        CHECK(run.wakeups == 2);
        CHECK(run.window_ns == 1000 * kMicros);
        CHECK(run.timer_expiry_ns == 20 * kMicros);
        CHECK(run.interrupts.at("irq 41 virtio3-rx") == 30 * kMicros);
        CHECK(run.softirqs.at("TIMER") == 50 * kMicros);
        CHECK(run.task_classes.at(latency::TaskClass::load) == 480 * kMicros);
        const auto tasks = run.tasks_by_time();
        REQUIRE(tasks.size() == 2);
        CHECK(tasks[0].comm == "spinner");
        CHECK(tasks[0].ns == 480 * kMicros);
        std::int64_t sum = run.timer_expiry_ns + run.unexplained_ns;
        for (const auto& [name, ns] : run.interrupts) sum += ns;
        for (const auto& [name, ns] : run.softirqs) sum += ns;
        for (const auto& t : tasks) sum += t.ns;
        CHECK(sum == run.window_ns);
    }
}

TEST_CASE("a real trace's late wake-up goes to the culprit that had the CPU", "[late_wakeup]") {
    // 10 ms of CPU 1 from the real case below: the sleeper (14859) should
    // have woken at 5709.546993872, while the culprit (14860, SCHED_FIFO)
    // had just taken the CPU from a compiler for one of its bursts.
    const std::string text =
        test::slurp(std::string(CONTEST_TEST_DATA) + "/trace/cpu1-culprit.trace");
    const ParsedTrace parsed = parse_trace(text);
    REQUIRE(parsed.skipped_lines == 0);
    const auto events = events_of_cpu(parsed.events, 1);
    REQUIRE(events.size() == 71);
    const std::int64_t intended = 5709546993872;
    const auto ran = latency::first_switch_to(events, 14859, intended);
    REQUIRE(ran == 5709551700000);
    const latency::LateWakeupSplit split =
        latency::split_late_wakeup(events, {1, 14859, intended, *ran}, no_class);
    CHECK(split.window_ns == 4706128);
    CHECK(split.parts_ns() == split.window_ns);
    check_timeline(split);
    CHECK(split.expiry_seen);
    CHECK(split.unexplained_ns == 0);
    REQUIRE(!split.tasks.empty());
    CHECK(split.tasks[0].comm == "trace-culprit");
    CHECK(split.tasks[0].pid == 14860);
    CHECK(split.tasks[0].ns > split.window_ns * 9 / 10);
}

TEST_CASE("a switch out of idle the trace lacks is put where the events say", "[late_wakeup]") {
    // The probe (100) sleeps, the CPU idles; one tick wakes both the probe
    // and a spinner (200), and the spinner runs, but the trace has no
    // switch from idle to it: only the lines it heads.
    std::vector<TraceEvent> events;
    events.push_back(switch_event(900, "probe", 100, "swapper/1", 0));
    events.push_back(cpu1_event(TraceEventKind::local_timer_entry, 1000, "<idle>", 0));
    events.push_back(wakeup_expiry(1001, "<idle>", 0));
    events.push_back(waking_of(1002, "<idle>", 0, "probe", 100));
    events.push_back(waking_of(1003, "<idle>", 0, "spinner", 200));
    events.push_back(cpu1_event(TraceEventKind::local_timer_exit, 1005, "<idle>", 0));
    events.push_back(cpu1_event(TraceEventKind::local_timer_entry, 1200, "spinner", 200));
    events.push_back(cpu1_event(TraceEventKind::local_timer_exit, 1210, "spinner", 200));
    events.push_back(switch_event(1400, "spinner", 200, "probe", 100));

    const latency::LateWakeupSplit split =
        latency::split_late_wakeup(events, {1, 100, 1000 * kMicros, 1400 * kMicros}, no_class);
    CHECK(split.parts_ns() == split.window_ns);
    check_timeline(split);
    CHECK(split.inferred_switches == 1);
    CHECK(split.timer_expiry_ns == 1 * kMicros);
    CHECK(named(split.interrupts, "local_timer") == 14 * kMicros);
    REQUIRE(split.tasks.size() == 1);
    CHECK(split.tasks[0].comm == "spinner");
    CHECK(split.tasks[0].ns == 385 * kMicros);
    CHECK(split.unexplained_ns == 0);

    SECTION("the probe's own switch in, missed, is found the same way") {
        std::vector<TraceEvent> quiet(events.begin(), events.begin() + 4);  // to its waking
        quiet.push_back(cpu1_event(TraceEventKind::local_timer_exit, 1005, "<idle>", 0));
        quiet.push_back(waking_of(1300, "probe", 100, "kworker/1:0", 7));
        CHECK(latency::first_switch_to(quiet, 100, 1000 * kMicros) == 1005 * kMicros);
    }
}

TEST_CASE("a switch between two tasks the trace lacks leaves its gap unexplained",
          "[late_wakeup]") {
    std::vector<TraceEvent> events;
    events.push_back(switch_event(900, "x", 9, "a", 5));
    events.push_back(cpu1_event(TraceEventKind::local_timer_entry, 1100, "b", 6));
    events.push_back(cpu1_event(TraceEventKind::local_timer_exit, 1110, "b", 6));
    events.push_back(switch_event(1200, "b", 6, "probe", 100));
    const latency::LateWakeupSplit split =
        latency::split_late_wakeup(events, {1, 100, 1000 * kMicros, 1200 * kMicros}, no_class);
    CHECK(split.parts_ns() == split.window_ns);
    check_timeline(split);
    CHECK(split.inferred_switches == 0);
    CHECK(split.unexplained_ns == 100 * kMicros);
    CHECK_THAT(split.unexplained_why, Catch::Contains("lacks the switch from a to b"));
    REQUIRE(split.tasks.size() == 1);
    CHECK(split.tasks[0].comm == "b");
    CHECK(split.tasks[0].ns == 90 * kMicros);
}

TEST_CASE("unmatched exits and runaway entries do not break the sums", "[late_wakeup]") {
    std::vector<TraceEvent> events;
    events.push_back(
        cpu1_event(TraceEventKind::irq_handler_exit, 10, "a", 1));  // entry before the trace
    for (int i = 0; i < 40; ++i)
        events.push_back(
            cpu1_event(TraceEventKind::local_timer_entry, 20 + i, "a", 1));  // exits lost
    events.push_back(cpu1_event(TraceEventKind::softirq_exit, 70, "a", 1));
    events.push_back(switch_event(100, "a", 1, "b", 2));
    const latency::LateWakeupSplit split =
        latency::split_late_wakeup(events, {1, 2, 5 * kMicros, 100 * kMicros}, nullptr);
    CHECK(split.parts_ns() == split.window_ns);
    check_timeline(split);
    CHECK(split.unexplained_ns == 5 * kMicros);  // 5 to 10 µs: before the trace's first event
    CHECK(named(split.interrupts, "local_timer") == 80 * kMicros);
    // A wake-up whose ran is before its intended is an empty window.
    const latency::LateWakeupSplit backwards =
        latency::split_late_wakeup(events, {1, 2, 90 * kMicros, 50 * kMicros}, nullptr);
    CHECK(backwards.window_ns == 0);
    CHECK(backwards.parts_ns() == 0);
}

namespace {

constexpr int kMaxLate = 1024;

// The sleeper: SCHED_OTHER, 1 ms absolute deadlines; each wake more than
// 1 ms after its deadline is recorded (after one, the deadlines it slept
// through are passed over, so that no two records share a delay).
struct SleeperBlock {
    std::atomic<int> done{0};
    std::atomic<int> late{0};
    std::int64_t intended_ns[kMaxLate]{};
    std::int64_t woke_ns[kMaxLate]{};
    char error[128]{};
};

int run_sleeper(SleeperBlock& b, int cpu, std::int64_t duration_ns) {
    ::prctl(PR_SET_NAME, "trace-sleeper");
    if (!pin_to(cpu)) {
        std::snprintf(b.error, sizeof b.error, "cannot pin the sleeper to CPU %d", cpu);
        return 1;
    }
    const std::int64_t start = monotonic_ns(), end = start + duration_ns;
    for (std::int64_t deadline = start + kMs; deadline < end;) {
        sleep_until_ns(deadline);
        const std::int64_t now = monotonic_ns();
        if (now - deadline > kMs) {
            const int n = b.late.load();
            if (n < kMaxLate) {
                b.intended_ns[n] = deadline;
                b.woke_ns[n] = now;
                b.late.store(n + 1);
            }
        }
        do deadline += kMs;
        while (deadline <= now);
    }
    b.done.store(1);
    return 0;
}

// The culprit: SCHED_FIFO 50 on the sleeper's CPU, spinning 3 to 5 ms at the
// start of every 50 ms for ~1.5 s. It times itself: nothing of lower
// priority on its CPU would get to stop it.
struct CulpritBlock {
    std::atomic<int> started{0};
    std::atomic<int> done{0};
    std::atomic<int> bursts{0};
    char error[128]{};
};

int run_culprit(CulpritBlock& b, int cpu) {
    ::prctl(PR_SET_NAME, "trace-culprit");
    const sched_param param{50};
    if (!pin_to(cpu) || ::sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
        std::snprintf(b.error, sizeof b.error, "cannot be SCHED_FIFO 50 on CPU %d", cpu);
        return 1;
    }
    b.started.store(1);
    const std::int64_t start = monotonic_ns();
    for (int i = 0; i < 30; ++i) {
        const std::int64_t burst_start = start + i * 50 * kMs;
        sleep_until_ns(burst_start);
        const std::int64_t burst_end = monotonic_ns() + (3 + i % 3) * kMs;
        while (monotonic_ns() < burst_end) {
        }
        b.bursts.fetch_add(1);
    }
    b.done.store(1);
    return 0;
}

// Whether this process may make a thread SCHED_FIFO 50 (root may not, in a
// cgroup with no real-time runtime): a thread that tries, and ends.
bool can_be_fifo() {
    bool ok = false;
    std::thread([&ok] {
        const sched_param param{50};
        ok = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param) == 0;
    }).join();
    return ok;
}

template <class Block>
bool wait_done(const ForkedWorker<Block>& worker, std::chrono::seconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (!worker.block().done.load() && !worker.failure())
        if (std::chrono::steady_clock::now() > give_up)
            return false;
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return worker.block().done.load() != 0;
}

struct SleeperRun {
    pid_t sleeper = -1, culprit = -1;
    int late_wakeups = 0, attributed = 0, caused = 0, bursts = 0;
    std::int64_t caused_late_ns = 0, culprit_ns = 0;
    // Of caused_late_ns, what other work on the machine ran (neither the
    // culprit nor the sleeper: a test or a guest beside this one).
    std::int64_t others_ns = 0;
    std::size_t skipped_lines = 0, events = 0;
    std::string stats;  // the CPU buffer's per_cpu stats at the end
    latency::LateTimeByCause total;
};

// One traced run of the sleeper on cpu, with the culprit beside it or not;
// every late wake-up attributed.
SleeperRun traced_sleeper_run(TraceInstance& trace, int cpu, bool with_culprit) {
    SleeperRun run;
    REQUIRE(trace.start());
    {
        ForkedWorker<SleeperBlock> sleeper(
            [cpu](SleeperBlock& b) { return run_sleeper(b, cpu, 1700 * kMs); });
        run.sleeper = sleeper.pgid();
        std::optional<ForkedWorker<CulpritBlock>> culprit;
        if (with_culprit) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            culprit.emplace([cpu](CulpritBlock& b) { return run_culprit(b, cpu); });
            run.culprit = culprit->pgid();
            INFO(culprit->failure().value_or(""));
            REQUIRE(wait_done(*culprit, std::chrono::seconds(20)));
            run.bursts = culprit->block().bursts.load();
        }
        INFO(sleeper.failure().value_or(""));
        REQUIRE(wait_done(sleeper, std::chrono::seconds(20)));
        REQUIRE(trace.stop());
        run.late_wakeups = sleeper.block().late.load();

        const TraceText text = trace.read();
        REQUIRE(text.why.empty());
        const ParsedTrace parsed = parse_trace(text.text);
        run.skipped_lines = parsed.skipped_lines;
        const auto events = events_of_cpu(parsed.events, cpu);
        run.events = events.size();
        run.stats = read_text_file(trace.path() + "/per_cpu/cpu" + std::to_string(cpu) + "/stats")
                        .value_or("");
        const pid_t sleeper_pid = run.sleeper, culprit_pid = run.culprit;
        const latency::TaskClassifier classify = [&](pid_t pid, std::string_view) {
            return pid == culprit_pid   ? latency::TaskClass::load
                   : pid == sleeper_pid ? latency::TaskClass::contest
                   : pid == 0           ? latency::TaskClass::kernel_thread
                                        : latency::TaskClass::other;
        };
        for (int i = 0; i < run.late_wakeups; ++i) {
            const std::int64_t intended = sleeper.block().intended_ns[i];
            const std::int64_t woke = sleeper.block().woke_ns[i];
            const auto ran = latency::first_switch_to(events, sleeper_pid, intended);
            // The switch in must come before the sleeper read its clock
            // (the trace's µs truncate by under one).
            if (!ran || *ran > woke) continue;
            ++run.attributed;
            const latency::LateWakeupSplit split =
                latency::split_late_wakeup(events, {cpu, sleeper_pid, intended, *ran}, classify);
            CHECK(split.parts_ns() == split.window_ns);
            check_timeline(split);
            run.total.add(split);
            std::int64_t by_culprit = 0, by_others = 0;
            for (const auto& task : split.tasks) {
                if (task.pid == culprit_pid && task.comm == "trace-culprit")
                    by_culprit += task.ns;
                else if (task.pid != sleeper_pid && task.pid != 0)
                    by_others += task.ns;
            }
            if (by_culprit > 0) {
                ++run.caused;
                run.caused_late_ns += split.window_ns;
                run.culprit_ns += by_culprit;
                run.others_ns += by_others;
            }
        }
    }  // the workers stopped and reaped
    return run;
}

// A run's late time by cause in a line, for a failure's message.
std::string causes_text(const latency::LateTimeByCause& run) {
    std::string text = std::to_string(run.wakeups) + " wake-ups, " +
                       std::to_string(run.window_ns / 1000) + " us: timer expiry " +
                       std::to_string(run.timer_expiry_ns / 1000) + ", unexplained " +
                       std::to_string(run.unexplained_ns / 1000) + ", switches inferred " +
                       std::to_string(run.inferred_switches);
    for (const auto& [name, ns] : run.interrupts)
        text += ", " + name + " " + std::to_string(ns / 1000);
    for (const auto& [name, ns] : run.softirqs)
        text += ", softirq " + name + " " + std::to_string(ns / 1000);
    for (const auto& task : run.tasks_by_time())
        text += ", " + task.comm + "(" + std::to_string(task.pid) + ") " +
                std::to_string(task.ns / 1000);
    return text;
}

}  // namespace

TEST_CASE("a real culprit is given most of the late time it causes", "[trace]") {
    const std::string root = kTracefsRoot;
    mount_tracefs_if_absent(root);  // as contest's recorder does
    const int cpu = traced_cpu();
    const std::string head_before = global_trace_head(root);
    std::string why;
    if (!can_be_fifo()) {
        WARN("SCHED_FIFO refused here: the culprit cannot run");
        CONTEST_SKIP("SCHED_FIFO refused here: the culprit cannot run");
    }
    SleeperRun with, without;
    // The ring holds the whole run even beside other tests' loads on the
    // traced CPU: 8 MiB overran under make test's 3 tests at a time (159012
    // events kept, 169952 overwritten in 4.4 s, a tar load beside it).
    constexpr std::size_t kRingKiB = 32768;
    {
        auto trace = TraceInstance::make({.cpus = {cpu}, .buffer_size_kb = kRingKiB}, why);
        if (!trace) {
            WARN("tracefs not usable: " << why);
            CONTEST_SKIP("tracefs not usable: " << why);
        }
        with = traced_sleeper_run(*trace, cpu, true);
    }
    CHECK_FALSE(fs::exists(instance_path(root)));
    {
        auto trace = TraceInstance::make({.cpus = {cpu}, .buffer_size_kb = kRingKiB}, why);
        REQUIRE(trace);
        without = traced_sleeper_run(*trace, cpu, false);
    }
    CHECK_FALSE(fs::exists(instance_path(root)));
    CHECK(global_trace_head(root) == head_before);
    CHECK(test::leftover_processes().empty());

    const std::string with_causes = causes_text(with.total),
                      without_causes = causes_text(without.total);
    CAPTURE(with_causes, without_causes);
    CAPTURE(with.late_wakeups, with.attributed, with.caused, with.bursts, with.events,
            with.caused_late_ns, with.culprit_ns, with.total.unexplained_ns,
            with.total.timer_expiry_ns, with.stats, without.late_wakeups, without.attributed,
            without.total.window_ns, without.total.timer_expiry_ns);
    CHECK(with.skipped_lines == 0);
    // The buffer held the whole run: nothing overwritten.
    CHECK_THAT(with.stats, Catch::Contains("\noverrun: 0\n"));
    CHECK(with.bursts == 30);
    // Most of 30 bursts of 3-5 ms keep the sleeper more than 1 ms late; a
    // wide floor, since a busy VM can merge or hide some.
    CHECK(with.caused >= 10);
    REQUIRE(with.caused_late_ns > 0);
    // Most of the late time the machine's other work did not take: on a
    // CPU a guest or a test beside this one also runs on, the late time is
    // rightly split between it and the culprit (seen: a TCG guest's thread
    // 110 ms beside the culprit's 103 ms).
    CAPTURE(with.others_ns);
    REQUIRE(with.caused_late_ns > with.others_ns);
    CHECK(static_cast<double>(with.culprit_ns) /
              static_cast<double>(with.caused_late_ns - with.others_ns) >
          0.6);
    for (const auto& task : without.total.tasks_by_time()) CHECK(task.comm != "trace-culprit");
}
