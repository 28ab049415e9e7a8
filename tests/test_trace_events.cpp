// The trace text's parser (contest/observe/trace_events.h) on a real trace
// and on the lines an untrusted comm can make.
#include <catch2/catch.hpp>
#include <string>

#include "contest/observe/trace_events.h"
#include "test_helpers.h"

using namespace contest;

namespace {

// A line as the kernel prints it: comm right-aligned in 16 columns.
std::string trace_line(const std::string& comm, int pid, int cpu, const std::string& ts,
                       const std::string& event, const std::string& fields) {
    std::string head = comm.size() < 16 ? std::string(16 - comm.size(), ' ') + comm : comm;
    char cpu_text[8];
    std::snprintf(cpu_text, sizeof cpu_text, "%03d", cpu);
    std::string pid_text = std::to_string(pid);
    pid_text.resize(std::max<std::size_t>(pid_text.size(), 7), ' ');
    return head + "-" + pid_text + " [" + cpu_text + "] d..2.  " + ts + ": " + event + ": " +
           fields;
}

std::string switch_fields(const std::string& prev_comm, int prev_pid, const std::string& state,
                          const std::string& next_comm, int next_pid) {
    return "prev_comm=" + prev_comm + " prev_pid=" + std::to_string(prev_pid) +
           " prev_prio=120 prev_state=" + state + " ==> next_comm=" + next_comm +
           " next_pid=" + std::to_string(next_pid) + " next_prio=120";
}

}  // namespace

TEST_CASE("a real trace's lines are all read, with their fields", "[trace_events]") {
    const std::string text =
        test::slurp(std::string(CONTEST_TEST_DATA) + "/trace/cpu0-sleeps.trace");
    REQUIRE(!text.empty());
    const ParsedTrace parsed = parse_trace(text);
    // 170 lines: 12 '#' headers, 158 events, every one of a known kind.
    CHECK(parsed.events.size() == 158);
    CHECK(parsed.skipped_lines == 0);
    CHECK(parsed.lost_events == 0);

    const TraceEvent& first = parsed.events.front();
    CHECK(first.kind == TraceEventKind::sched_switch);
    CHECK(first.cpu == 0);
    CHECK(first.ts_ns == 3668028358000);
    CHECK(first.task_comm == "bash");
    CHECK(first.task_pid == 25558);
    CHECK(first.prev_comm == "bash");
    CHECK(first.prev_pid == 25558);
    CHECK(first.prev_state == "R+");
    CHECK(first.next_comm == "rcu_preempt");
    CHECK(first.next_pid == 15);

    std::size_t switches = 0;
    bool saw_irq = false, saw_softirq = false, saw_hrtimer = false, saw_waking = false,
         saw_idle = false;
    for (const auto& e : parsed.events) {
        if (e.kind == TraceEventKind::sched_switch) ++switches;
        if (e.task_comm == "<idle>" && e.task_pid == 0) saw_idle = true;
        if (e.kind == TraceEventKind::irq_handler_entry && e.irq == 41 &&
            e.irq_name == "virtio3-rx")
            saw_irq = true;
        if (e.kind == TraceEventKind::softirq_entry && e.vec == 1 && e.vec_name == "TIMER")
            saw_softirq = true;
        if (e.kind == TraceEventKind::hrtimer_expire_entry && e.hrtimer_now_ns == 3668036066156 &&
            e.hrtimer_function == "tick_nohz_handler")
            saw_hrtimer = true;
        if (e.kind == TraceEventKind::sched_waking && e.comm == "kworker/0:0" && e.pid == 14752 &&
            e.target_cpu == 0)
            saw_waking = true;
    }
    CHECK(switches == 29);
    CHECK(saw_irq);
    CHECK(saw_softirq);
    CHECK(saw_hrtimer);
    CHECK(saw_waking);
    CHECK(saw_idle);
}

TEST_CASE("comms with spaces, brackets and ==> inside are read whole", "[trace_events]") {
    SECTION("sched_switch with ==> and field names in both comms") {
        const std::string prev = "a ==> b [001] x";  // 15 bytes
        const std::string next = " ==> next_comm=";  // 15 bytes, the separator itself
        const auto e = parse_trace_line(trace_line(prev, 4242, 1, "100.000001", "sched_switch",
                                                   switch_fields(prev, 4242, "S", next, 77)));
        REQUIRE(e);
        CHECK(e->kind == TraceEventKind::sched_switch);
        CHECK(e->cpu == 1);
        CHECK(e->ts_ns == 100000001000);
        CHECK(e->task_comm == prev);
        CHECK(e->task_pid == 4242);
        CHECK(e->prev_comm == prev);
        CHECK(e->prev_pid == 4242);
        CHECK(e->prev_state == "S");
        CHECK(e->next_comm == next);
        CHECK(e->next_pid == 77);
    }
    SECTION("a comm that fakes other fields") {
        const std::string prev = " prev_pid=9 x";
        const std::string next = "next_pid=5 y";
        const auto e = parse_trace_line(trace_line(prev, 31, 0, "5.5", "sched_switch",
                                                   switch_fields(prev, 31, "D|K", next, 32)));
        REQUIRE(e);
        CHECK(e->prev_comm == prev);
        CHECK(e->prev_pid == 31);
        CHECK(e->prev_state == "D|K");
        CHECK(e->next_comm == next);
        CHECK(e->next_pid == 32);
        CHECK(e->ts_ns == 5500000000);
    }
    SECTION("a woken comm with spaces and fake fields") {
        const std::string comm = "x pid=1 [000] y";
        const auto e =
            parse_trace_line(trace_line("my-app 2", 8, 3, "1.000002", "sched_waking",
                                        "comm=" + comm + " pid=900 prio=120 target_cpu=003"));
        REQUIRE(e);
        CHECK(e->task_comm == "my-app 2");
        CHECK(e->task_pid == 8);
        CHECK(e->comm == comm);
        CHECK(e->pid == 900);
        CHECK(e->target_cpu == 3);
    }
    SECTION("a line-head comm that looks like a head") {
        const std::string comm = "-1 [7] d 1.2: x";
        const auto e = parse_trace_line(
            trace_line(comm, 55, 2, "9.000003", "softirq_entry", "vec=9 [action=RCU]"));
        REQUIRE(e);
        CHECK(e->task_comm == comm);
        CHECK(e->task_pid == 55);
        CHECK(e->cpu == 2);
        CHECK(e->vec == 9);
        CHECK(e->vec_name == "RCU");
    }
}

TEST_CASE("truncated lines and garbage are skipped and counted", "[trace_events]") {
    const std::string good = trace_line("bash", 10, 0, "1.000001", "sched_switch",
                                        switch_fields("bash", 10, "S", "cat", 11));
    std::string text = "# tracer: nop\n#\n" + good + "\n";
    // A cut 5 bytes or more short of the end is unreadable (a cut inside
    // next_prio's number would still read, as a shorter number).
    std::size_t cuts = 0;
    for (std::size_t cut = 1; cut + 4 < good.size(); cut += 7) {
        text += good.substr(0, cut) + "\n";
        ++cuts;
    }
    text += "garbage\n\n\x01\x02\xff [000] \n";
    text += "      cat-11      [000] d..2.  1.000002: sched_switch: prev_comm=cat\n";
    text += "      cat-11      [000] d..2.  1.000003: some_other_event: a=b\n";
    text += "CPU:1 [LOST 42 EVENTS]\n";
    text += good;  // the last line without its newline
    const ParsedTrace parsed = parse_trace(text);
    CHECK(parsed.events.size() == 2);
    CHECK(parsed.skipped_lines == cuts + 2 + 2);
    CHECK(parsed.lost_events == 42);
    for (const auto& e : parsed.events) CHECK(e.next_comm == "cat");
}

TEST_CASE("the parser takes any bytes", "[trace_events]") {
    std::string bytes;
    for (int i = 0; i < 4096; ++i) bytes += static_cast<char>((i * 7919) % 256);
    const ParsedTrace parsed = parse_trace(bytes);
    CHECK(parsed.events.empty());
    CHECK(parsed.skipped_lines > 0);
    CHECK(parse_trace("").events.empty());
    CHECK_FALSE(parse_trace_line(" [").has_value());
    CHECK_FALSE(parse_trace_line("-1 [0] ").has_value());
    CHECK_FALSE(parse_trace_line("x-1 [0] d 1.: sched_switch: ").has_value());
    CHECK_FALSE(parse_trace_line("x-1 [99999999999999999999] d 1.0: sched_switch: ").has_value());
}

TEST_CASE("sched_migrate_task says which task moved, from and to which CPU", "[trace_events]") {
    const auto e = parse_trace_line(
        "     my task==>x-4242    [001] d..2.  3668.028358: sched_migrate_task: comm=cyclic "
        "dest_cpu=7 pid=500 prio=120 orig_cpu=1 dest_cpu=0");
    REQUIRE(e);
    CHECK(e->kind == TraceEventKind::sched_migrate_task);
    CHECK(e->task_comm == "my task==>x");
    CHECK(e->comm == "cyclic dest_cpu=7");
    CHECK(e->pid == 500);
    CHECK(e->orig_cpu == 1);
    CHECK(e->dest_cpu == 0);
    CHECK_FALSE(
        parse_trace_line("            bash-1 [000] d..2. 1.000001: sched_migrate_task: "
                         "comm=x pid=2 prio=120 orig_cpu=1"));
}
