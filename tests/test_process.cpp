// Process control: spawn, wait4 rusage, group stop, and that nothing escapes.
#include <catch2/catch.hpp>
#include <csignal>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "test_helpers.h"

using namespace contest;
using Clock = std::chrono::steady_clock;

namespace {
// About a second of shell arithmetic: real user CPU time to measure.
const std::string kBusyShell = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
}  // namespace

TEST_CASE("wait_child reports the child's wall time and CPU from wait4", "[process]") {
    auto started = Clock::now();
    pid_t pid = spawn({"sh", "-c", kBusyShell});
    GroupGuard guard(pid);
    ExitInfo ex = wait_child(pid, started);
    guard.release();
    REQUIRE(ex.exited_ok());
    double cpu = double(ex.usage.ru_utime.tv_sec) + double(ex.usage.ru_utime.tv_usec) / 1e6 +
                 double(ex.usage.ru_stime.tv_sec) + double(ex.usage.ru_stime.tv_usec) / 1e6;
    CHECK(cpu > 0.05);
    // CPU of one single-threaded process cannot exceed its wall time (+ a tick).
    CHECK(cpu <= ex.wall_s + 0.02);
    CHECK(ex.wall_s > 0);
}

TEST_CASE("wait4 rusage includes the descendants the child waited for", "[process]") {
    auto started = Clock::now();
    // The busy work happens in a grandchild; time(1) counts it, so must we.
    pid_t pid = spawn({"sh", "-c", "sh -c '" + kBusyShell + "'; true"});
    ExitInfo ex = wait_child(pid, started);
    double user = double(ex.usage.ru_utime.tv_sec) + double(ex.usage.ru_utime.tv_usec) / 1e6;
    CHECK(user > 0.05);
}

TEST_CASE("a failing command reports its exit status", "[process]") {
    pid_t pid = spawn({"sh", "-c", "exit 3"});
    ExitInfo ex = wait_child(pid, Clock::now());
    CHECK_FALSE(ex.exited_ok());
    CHECK(ex.describe() == "exit 3");
}

TEST_CASE("a command that does not exist is an environment error, not a failed run", "[process]") {
    REQUIRE_THROWS_AS(spawn({"/nonexistent/contest-no-such-tool"}), EnvironmentError);
}

TEST_CASE("stop_group stops a whole group, also members that ignore SIGTERM", "[process][slow]") {
    test::adopt_orphans();
    pid_t pid = spawn({"sh", "-c", "trap '' TERM; sleep 100 & sleep 100 & wait"});
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    REQUIRE(group_members(pid).size() == 3);
    auto t0 = Clock::now();
    stop_group(pid, std::chrono::milliseconds(500));
    CHECK(group_members(pid).empty());
    // TERM ignored by the shell: KILL after the grace, not much later.
    CHECK(std::chrono::duration<double>(Clock::now() - t0).count() < 5.0);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("group_cpu_seconds counts the CPU of a group's processes", "[process][slow]") {
    pid_t pid = spawn({"sh", "-c", "while :; do :; done"});
    GroupGuard guard(pid);
    double before = group_cpu_seconds(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    double after = group_cpu_seconds(pid);
    // One spinning process: about 1 s of CPU in 1 s alone; a wide margin
    // for a shared, busy machine.
    CHECK(after - before > 0.05);
    CHECK(after - before < 1.5);
}

TEST_CASE("a timeout stops the child's group and says so", "[process][slow]") {
    pid_t pid = spawn({"sleep", "30"});
    WaitHooks hooks;
    hooks.timeout = std::chrono::milliseconds(300);
    ExitInfo ex = wait_child(pid, Clock::now(), hooks);
    CHECK(ex.timed_out);
    CHECK(ex.wall_s < 10);
    CHECK(ex.describe() == "timed out");
}

TEST_CASE("a child never inherits an outer make's jobserver", "[process]") {
    // As under `make run`: contest's compile must be a make of its own.
    ::setenv("MAKEFLAGS", "-j2 --jobserver-auth=3,4", 1);
    ::setenv("MAKELEVEL", "1", 1);
    pid_t pid = spawn({"sh", "-c", "test -z \"$MAKEFLAGS\" && test -z \"$MAKELEVEL\""});
    ExitInfo ex = wait_child(pid, Clock::now());
    ::unsetenv("MAKEFLAGS");
    ::unsetenv("MAKELEVEL");
    CHECK(ex.exited_ok());
}
