// The machine's CPU time from /proc/stat, and what the rest of the machine
// did during a run.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "contest/observe/machine_cpu.h"

using namespace contest;

TEST_CASE("/proc/stat's cpu line gives busy and steal time", "[machine_cpu]") {
    const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
    //                       user nice sys idle iowait irq softirq steal guest guest_nice
    auto m = parse_proc_stat(
        "cpu  1000 20 300 9999 50 6 7 80 500 0\n"
        "cpu0 500 10 150 5000 25 3 3 40 250 0\n");
    REQUIRE(m);
    // Idle and iowait are not busy; guest is inside user already.
    CHECK(m->busy_s == Approx((1000 + 20 + 300 + 6 + 7) * tick));
    CHECK(m->steal_s == Approx(80 * tick));
    CHECK_FALSE(parse_proc_stat("intr 5 6 7\n"));
    CHECK_FALSE(parse_proc_stat("cpu  1 2 3\n"));
}

TEST_CASE("this machine's /proc/stat can be read and only grows", "[machine_cpu]") {
    auto a = read_machine_cpu();
    REQUIRE(a);
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 50'000'000; ++i) spin = spin + i;
    auto b = read_machine_cpu();
    REQUIRE(b);
    CHECK(b->busy_s >= a->busy_s);
    CHECK(b->steal_s >= a->steal_s);
}

TEST_CASE("others' CPU is the machine's busy time less the workload's and the load's",
          "[machine_cpu]") {
    MachineCpu start{100, 10}, end{106, 10.3};
    // 6 s busy in 3 s: 200% of a CPU; the workload 150%, the load 20%.
    auto o = outside_cpu(start, end, 3, 150, 20);
    CHECK(o.others_pct == Approx(30));
    CHECK(o.steal_pct == Approx(10));
    // Tick rounding can make the difference slightly negative: 0, not less.
    CHECK(outside_cpu(start, end, 3, 199, 5).others_pct == 0);
    CHECK(outside_cpu(start, end, 0, 0, 0).others_pct == 0);
}
