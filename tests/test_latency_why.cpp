// contest latency --why through the real binary: a known culprit (SCHED_FIFO,
// pinned to the probe's CPU, spinning in bursts it times itself) is named
// as the cause of the late time it made; without tracefs the run goes on and
// says "not recorded"; no tracing instance of contest's outlives it.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_helpers.h"

namespace fs = std::filesystem;

namespace {

std::int64_t now_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

bool pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

// Spins 4 ms of every 50 ms for `seconds` on `cpu` at SCHED_FIFO 50; exits 3
// when it may not be real-time (a cgroup without real-time runtime).
pid_t start_culprit(int cpu, double seconds) {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    ::prctl(PR_SET_NAME, "why-culprit");
    const sched_param param{50};
    if (!pin(cpu) || ::sched_setscheduler(0, SCHED_FIFO, &param) != 0) ::_exit(3);
    const std::int64_t end = now_ns() + static_cast<std::int64_t>(seconds * 1e9);
    while (now_ns() < end) {
        const std::int64_t burst_end = now_ns() + 4'000'000;
        while (now_ns() < burst_end) {
        }
        const timespec rest{0, 46'000'000};
        ::nanosleep(&rest, nullptr);
    }
    ::_exit(0);
}

bool tracefs_usable() {
    contest::mount_tracefs_if_absent();  // as contest does
    return ::geteuid() == 0 &&
           (fs::exists("/sys/kernel/tracing/instances") || fs::exists("/sys/kernel/tracing"));
}

bool no_instance_of_ours() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/sys/kernel/tracing/instances", ec))
        if (e.path().filename().string().starts_with("contest-")) return false;
    return true;
}

// The test process and what it starts on one CPU, for the duration.
struct Pinned {
    cpu_set_t before{};
    explicit Pinned(int cpu) {
        ::sched_getaffinity(0, sizeof before, &before);
        pin(cpu);
    }
    ~Pinned() { ::sched_setaffinity(0, sizeof before, &before); }
};

}  // namespace

TEST_CASE("contest latency --why names the culprit that held the probe's CPU",
          "[latency][e2e][trace]") {
    if (!tracefs_usable()) {
        WARN("no tracefs here (not root?): nothing to check");
        return;
    }
    contest::test::ScratchDir dir("latency-why");
    const int cpu = static_cast<int>(std::thread::hardware_concurrency()) > 1 ? 1 : 0;
    Pinned pinned(cpu);
    const pid_t culprit = start_culprit(cpu, 3.5);
    auto o = contest::test::run_contest_binary(
        {"latency", "--why", "--duration", "2", "--format", "json"}, dir.path());
    int status = 0;
    ::waitpid(culprit, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        WARN("SCHED_FIFO refused here: no culprit to find");
        return;
    }
    REQUIRE(o.exit_code == 0);
    const auto j = nlohmann::json::parse(o.out);
    const auto& why = j.at("why");
    REQUIRE(why.at("recorded") == true);
    INFO(why.dump(2));
    REQUIRE(why.at("in_trace").get<int>() > 5);
    double culprit_ns = 0;
    for (const auto& t : why.at("tasks"))
        if (t.at("pid") == culprit) {
            CHECK(t.at("comm") == "why-culprit");
            culprit_ns = t.at("ns").get<double>();
        }
    // Most of the late time was the culprit's: its bursts are 4 ms, the
    // probe's threshold one period (1 ms).
    CHECK(culprit_ns > 0.5 * why.at("by_cause").at("late_ns").get<double>());
    CHECK(no_instance_of_ours());
    CHECK(contest::test::leftover_processes().empty());
}

TEST_CASE("contest latency --why without tracefs runs on, says so once, records 'not recorded'",
          "[latency][e2e]") {
    contest::test::ScratchDir dir("latency-why-none");
    fs::create_directories(dir / "empty");
    ::setenv("CONTEST_TRACEFS_ROOT", (dir / "empty").c_str(), 1);
    auto o = contest::test::run_contest_binary(
        {"latency", "--why", "--duration", "1", "--format", "json"}, dir.path());
    ::unsetenv("CONTEST_TRACEFS_ROOT");
    REQUIRE(o.exit_code == 0);
    const auto j = nlohmann::json::parse(o.out);
    CHECK(j.at("why").at("recorded") == false);
    CHECK_FALSE(j.at("why").at("why").get<std::string>().empty());
    CHECK(j.at("latency").at("samples").get<int>() > 100);
    std::size_t said = 0;
    for (std::size_t at = o.err.find("--why: not recorded"); at != std::string::npos;
         at = o.err.find("--why: not recorded", at + 1))
        ++said;
    CHECK(said == 1);
    // And --why-us alone is a usage error.
    o = contest::test::run_contest_binary({"latency", "--why-us", "500"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--why-us needs --why"));
}

TEST_CASE(
    "contest latency --why: its instance is gone after Ctrl-C and SIGTERM, a SIGKILLed "
    "one at the next start; the global buffer and others' instances are untouched",
    "[latency][e2e][trace]") {
    if (!tracefs_usable()) {
        WARN("no tracefs here (not root?): nothing to check");
        return;
    }
    contest::test::ScratchDir dir("latency-why-signals");
    const fs::path instances = "/sys/kernel/tracing/instances";
    // An instance contest did not make, and the global buffer's settings.
    const fs::path others = instances / "not-contest-test";
    fs::create_directory(others);
    const std::string global_on = contest::test::slurp("/sys/kernel/tracing/tracing_on");
    const std::string global_events = contest::test::slurp("/sys/kernel/tracing/set_event");
    auto ours = [&](pid_t pid) { return instances / ("contest-" + std::to_string(pid)); };
    for (int sig : {SIGINT, SIGTERM}) {
        INFO("signal " << sig);
        const pid_t pid =
            contest::test::start_contest({"latency", "--why", "--duration", "20"}, dir.path());
        REQUIRE(contest::test::wait_until_catching(pid, sig));
        for (int i = 0; i < 100 && !fs::exists(ours(pid)); ++i) ::usleep(50'000);
        CHECK(fs::exists(ours(pid)));
        ::kill(pid, sig);
        contest::test::finish_contest(pid, dir.path());
        CHECK_FALSE(fs::exists(ours(pid)));
    }
    const pid_t killed =
        contest::test::start_contest({"latency", "--why", "--duration", "20"}, dir.path());
    for (int i = 0; i < 100 && !fs::exists(ours(killed)); ++i) ::usleep(50'000);
    REQUIRE(fs::exists(ours(killed)));
    ::kill(killed, SIGKILL);
    contest::test::finish_contest(killed, dir.path());
    CHECK(fs::exists(ours(killed)));  // nothing could remove it...
    // The next start, with --why or not, removes it and says so.
    auto o = contest::test::run_contest_binary({"latency", "--duration", "0.5"}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK_FALSE(fs::exists(ours(killed)));  // ...until the next start
    CHECK_THAT(o.err, Catch::Contains("removed " + ours(killed).string()));
    CHECK(fs::exists(others));
    CHECK(contest::test::slurp("/sys/kernel/tracing/tracing_on") == global_on);
    CHECK(contest::test::slurp("/sys/kernel/tracing/set_event") == global_events);
    fs::remove(others);
    CHECK(contest::test::leftover_processes().empty());
}

TEST_CASE(
    "contest run --latency-why: each run's probe says what held it, the compile's tasks "
    "told from the load's",
    "[latency][e2e][trace]") {
    if (!tracefs_usable()) {
        WARN("no tracefs here (not root?): nothing to check");
        return;
    }
    contest::test::ScratchDir dir("run-latency-why");
    // Two busy loops on the 2 CPUs: the probe's late wake-ups wait for them.
    const std::string loop = "awk 'BEGIN { for (i = 0; i < 40000000; i++) s += i }'";
    auto o = contest::test::run_contest_binary({"run",
                                                "--quiet",
                                                "-k",
                                                "why",
                                                "-w",
                                                "command",
                                                "--workload-cmd",
                                                "sh -c \"" + loop + " & " + loop + " & wait\"",
                                                "--latency",
                                                "cyclic",
                                                "--latency-why",
                                                "--latency-why-us",
                                                "300",
                                                "--warmup",
                                                "0",
                                                "--settle",
                                                "0",
                                                "--timeline-hz",
                                                "0",
                                                "--workdir",
                                                (dir / "work").string(),
                                                "--results",
                                                (dir / "res").string(),
                                                "-n",
                                                "1",
                                                "no_load"},
                                               dir.path());
    REQUIRE(o.exit_code == 0);
    const auto files = contest::test::result_files(dir / "res");
    REQUIRE(files.size() == 1);
    const auto j = nlohmann::json::parse(contest::test::slurp(files.front()));
    const auto& why = j.at("runs").at(0).at("latency").at("cyclic").at("why");
    INFO(why.dump(2));
    REQUIRE(why.at("recorded") == true);
    CHECK(why.at("threshold_ns") == 300'000);
    if (why.at("in_trace").get<int>() > 0) {
        const auto& classes = why.at("by_cause").at("tasks_by_class_ns");
        CHECK(classes.value("workload", 0) > 0);
    }
    CHECK(no_instance_of_ours());
    o = contest::test::run_contest_binary({"run", "--latency-why", "-n", "1", "no_load"},
                                          dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--latency-why needs --latency"));
}
