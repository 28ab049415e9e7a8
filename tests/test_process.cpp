// Process control: spawn, wait4 rusage, group stop, and that nothing escapes.
#include <sys/wait.h>
#include <catch2/catch.hpp>

#include <csignal>
#include <fstream>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
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

TEST_CASE("a command whose folder does not exist is an environment error", "[process]") {
    SpawnOptions options;
    options.cwd = "/nonexistent/contest-no-such-folder";
    REQUIRE_THROWS_AS(spawn({"true"}, options), EnvironmentError);
    // The child that could not start was reaped, not left a zombie.
    CHECK(own_children().empty());
}

TEST_CASE("command_output reads the program's output through a pipe", "[process]") {
    CHECK(command_output({"sh", "-c", "echo one; echo two >&2; echo three"}) == "one\nthree\n");
    CHECK(first_line(command_output({"sh", "-c", "echo one; echo three"})) == "one");
    // A failing or missing program gives "", never an exception.
    CHECK(command_output({"sh", "-c", "echo partial; exit 1"}).empty());
    CHECK(command_output({"/nonexistent/contest-no-such-tool"}).empty());
    CHECK(own_children().empty());
}

TEST_CASE("command_output_within gives up on a command that does not end, and stops it",
          "[process]") {
    using std::chrono::milliseconds;
    CHECK(command_output_within({"sh", "-c", "echo 7"}, milliseconds(5000)) == "7\n");
    for (const std::vector<std::string>& stuck :
         {std::vector<std::string>{"sleep", "30"},
          // Its output closed, itself still running: the read ends, the wait must not hang.
          std::vector<std::string>{"sh", "-c", "echo 7; exec >&-; sleep 30"}}) {
        const auto before = Clock::now();
        CHECK_FALSE(command_output_within(stuck, milliseconds(300)).has_value());
        CHECK(Clock::now() - before < std::chrono::seconds(10));  // not the sleep's 30 s
        CHECK(own_children().empty());
    }
}

TEST_CASE("command_output ends on an interrupt, its child stopped and reaped", "[process]") {
    // In a child of the test: the interrupt flag, once raised, stays raised.
    std::fflush(nullptr);
    const pid_t tester = ::fork();
    REQUIRE(tester >= 0);
    if (tester == 0) {
        install_interrupt_handlers();
        std::thread ctrl_c([] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            ::kill(::getpid(), SIGINT);
        });
        int rc = 1;  // returned: the interrupt was not seen
        try {
            command_output({"sleep", "30"});
        } catch (const Interrupted&) {
            rc = own_children().empty() ? 0 : 2;
        } catch (...) {
            rc = 3;
        }
        ctrl_c.join();
        ::_exit(rc);
    }
    // Far below the sleep's 30 s: the read did not wait for the sleep to end.
    int status = 0;
    const auto give_up = Clock::now() + std::chrono::seconds(20);
    while (::waitpid(tester, &status, WNOHANG) == 0 && Clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Clock::now() >= give_up) {
        ::kill(tester, SIGKILL);
        ::waitpid(tester, &status, 0);
        FAIL("command_output was still reading 20 s after the interrupt");
    }
    INFO("0: interrupted, 1: returned, 2: a child left, 3: another error");
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(test::leftover_processes().empty());
}

namespace {
std::size_t open_fds() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
}
}  // namespace

TEST_CASE("wait_child closes its pidfd when the exit hook throws", "[process]") {
    const auto started = Clock::now();
    const pid_t pid = spawn({"true"});
    GroupGuard guard(pid);
    const std::size_t before = open_fds();
    WaitHooks hooks;
    hooks.on_exit = [] { throw std::runtime_error("the hook failed"); };
    CHECK_THROWS_WITH(wait_child(pid, started, hooks), "the hook failed");
    CHECK(open_fds() == before);
}

TEST_CASE("wait_child whose child was reaped elsewhere is an error, never exit 0", "[process]") {
    const auto started = Clock::now();
    const pid_t pid = spawn({"sh", "-c", "exit 7"});
    GroupGuard guard(pid);
    WaitHooks hooks;
    // Between the exit being seen and wait_child's own reap.
    hooks.on_exit = [pid] {
        int status;
        ::waitpid(pid, &status, 0);
    };
    CHECK_THROWS_AS(wait_child(pid, started, hooks), EnvironmentError);
    // A pid that is no child at all (already reaped): an error too, not a hang.
    CHECK_THROWS_AS(wait_child(pid, started), EnvironmentError);
}

TEST_CASE("spawn sends each stream where the options say", "[process]") {
    test::ScratchDir dir("spawn-streams");
    const auto log = dir / "log";
    std::ofstream(log) << "before\n";
    SpawnOptions options;
    options.cwd = dir.path();
    options.env_overrides = {"CONTEST_TEST_VALUE=42"};
    options.log_to(log);
    pid_t pid = spawn({"sh", "-c", "echo \"$CONTEST_TEST_VALUE\"; pwd >&2; cat"}, options);
    ExitInfo ex = wait_child(pid, Clock::now());
    REQUIRE(ex.exited_ok());
    // Appended, stdin from /dev/null (cat ends at once), the folder and
    // the environment as given.
    CHECK(test::slurp(log) == "before\n42\n" + dir.path().string() + "\n");

    std::ofstream(dir / "input") << "from a file\n";
    SpawnOptions piped_options;
    piped_options.in = StdStream::file(dir / "input");
    piped_options.out = StdStream::pipe();
    piped_options.err = StdStream::file(dir / "err", false);
    Spawned piped =
        spawn_with_pipes({"sh", "-c", "read line; echo \"$line!\"; echo err >&2"}, piped_options);
    char buf[64] = {};
    ssize_t n = ::read(piped.out.get(), buf, sizeof buf - 1);
    CHECK(wait_for_exit(piped.pid) == 0);
    CHECK(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0) == "from a file!\n");
    CHECK(test::slurp(dir / "err") == "err\n");
}

TEST_CASE("a child joins its own group, or the caller's when told", "[process]") {
    pid_t own = spawn({"sleep", "5"});
    GroupGuard own_group(own);
    CHECK(::getpgid(own) == own);
    pid_t member = spawn({"sleep", "5"}, in_callers_group(-1, -1, -1));
    CHECK(::getpgid(member) == ::getpgrp());
    ::kill(member, SIGKILL);
    CHECK(WIFSIGNALED(wait_for_exit(member)));
    pid_t forked = fork_function([] { return 7; });
    int status = wait_for_exit(forked);
    CHECK(describe_wait_status(status) == "exit 7");
}

TEST_CASE("exit_status_unreaped looks at an ended child and leaves it for the reap", "[process]") {
    pid_t child = fork_function([] { return 7; });
    std::optional<int> seen;
    for (int i = 0; i < 2000 && !seen; ++i) {
        seen = exit_status_unreaped(child);
        if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(seen);
    CHECK(describe_wait_status(*seen) == "exit 7");
    CHECK(exit_status_unreaped(child) == seen);  // still there: only looked at
    CHECK(wait_for_exit(child) == *seen);        // the reap gets the same status
    CHECK_FALSE(exit_status_unreaped(child));    // reaped: no child of ours now
    pid_t running = spawn({"sleep", "5"});
    GroupGuard group(running);
    CHECK_FALSE(exit_status_unreaped(running));
}

TEST_CASE("find_on_path is the one PATH search, and never trusts an empty entry", "[process]") {
    test::ScratchDir dir("path-search");
    const auto tool = dir / "contest-test-tool";
    std::ofstream(tool) << "#!/bin/sh\n";
    std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
    CHECK(find_on_path("contest-test-tool", "/nonexistent:" + dir.path().string()) == tool);
    CHECK_FALSE(find_on_path("contest-test-tool", "/nonexistent"));
    // An empty entry means "."; even from inside the folder it is not used.
    auto here = std::filesystem::current_path();
    std::filesystem::current_path(dir.path());
    auto found = find_on_path("contest-test-tool", ":/nonexistent");
    std::filesystem::current_path(here);
    CHECK_FALSE(found);
    // A name with a '/' is only checked.
    CHECK(find_on_path(tool.string(), "") == tool);
    CHECK(find_on_path("sh").has_value());
}

TEST_CASE("the exit status reads the same everywhere", "[process]") {
    CHECK(describe_wait_status(W_EXITCODE(2, 0)) == "exit 2");
    CHECK(describe_wait_status(SIGKILL) == "killed by signal 9 (Killed)");
}
