// The forked worker under every load and probe: its shared block is never
// left mapped, and how it died reads the same for a load and a probe.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <thread>

#include "contest/latency/probe_choice.h"
#include "contest/latency/probe_options.h"
#include "contest/latency/running_probe.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/sys/errors.h"
#include "contest/sys/forked_worker.h"
#include "contest/sys/process.h"
#include "loads/registry.h"
#include "test_helpers.h"

using namespace contest;

namespace {

// A load that does nothing until it is stopped.
struct Idler : Load {
    void run(LoadCounters&) override {
        for (;;) ::pause();
    }
};

// How many MAP_SHARED|MAP_ANONYMOUS mappings this process has: the kernel
// shows each as a shared mapping of a deleted /dev/zero.
int shared_anonymous_mappings() {
    std::ifstream maps("/proc/self/maps");
    int n = 0;
    for (std::string line; std::getline(maps, line);)
        if (line.find(" rw-s ") != std::string::npos &&
            line.find("/dev/zero (deleted)") != std::string::npos)
            ++n;
    return n;
}

enum ForkOutcome { kNoLeak = 0, kDidNotThrow = 10, kLeaked = 11, kCannotDrop = 12 };

// Runs `start` in a child of the test where fork() fails for real: the child
// becomes an unprivileged user (root ignores RLIMIT_NPROC) with no process
// allowed beyond those that user has. Returns the child's ForkOutcome.
int outcome_when_fork_fails(const std::function<void()>& start) {
    std::fflush(nullptr);
    pid_t child = ::fork();
    if (child == 0) {
        constexpr uid_t kNobody = 65534;
        struct rlimit none = {0, 0};
        if (::setgid(kNobody) != 0 || ::setuid(kNobody) != 0 ||
            ::setrlimit(RLIMIT_NPROC, &none) != 0)
            ::_exit(kCannotDrop);
        const int before = shared_anonymous_mappings();
        try {
            start();
        } catch (const EnvironmentError&) {
            ::_exit(shared_anonymous_mappings() == before ? kNoLeak : kLeaked);
        }
        ::_exit(kDidNotThrow);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

latency::ProbeOptions cyclic_probe() {
    return latency::make_probe_options(latency::parse_probe("cyclic"), latency::ProbeSettings{});
}

// Polls the worker's failure() until it says something (at most 10 s).
std::optional<std::string> failure_once_dead(const std::function<std::optional<std::string>()>& f) {
    std::optional<std::string> why;
    for (int i = 0; i < 1000 && !why; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        why = f();
    }
    return why;
}

}  // namespace

TEST_CASE("a forked worker runs its function in its own group and shares its block", "[process]") {
    struct Block {
        std::atomic<int> seen{0};
        char error[64] = {};
    };
    {
        ForkedWorker<Block> worker([](Block& b) {
            b.seen.store(::getpgrp() == ::getpid() ? 1 : 2);
            return 4;
        });
        REQUIRE(failure_once_dead([&] { return worker.failure(); }) == "exit 4");
        CHECK(worker.block().seen.load() == 1);
        worker.stop();
        CHECK(worker.failure() == "not running");
    }
    ForkedWorker<Block> quitter([](Block& b) {
        std::snprintf(b.error, sizeof b.error, "no room");
        return 1;
    });
    CHECK(failure_once_dead([&] { return quitter.failure(); }) == "no room");
    quitter.stop();
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a load or probe whose fork fails leaves no shared mapping behind", "[loads][latency]") {
    Idler idler;
    const LoadInfo& info = *find_load("cpu_load");
    CHECK(outcome_when_fork_fails([&] { RunningLoad running(info, idler); }) == kNoLeak);
    CHECK(outcome_when_fork_fails([] { latency::RunningProbe probe(cyclic_probe(), {}); }) ==
          kNoLeak);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a load killed by a signal says so in describe_wait_status's words", "[loads]") {
    Idler idler;
    const LoadInfo& info = *find_load("cpu_load");
    RunningLoad running(info, idler);
    REQUIRE(::kill(running.pgid(), SIGKILL) == 0);
    auto why = failure_once_dead([&] { return running.failure(); });
    REQUIRE(why);
    CHECK(*why == "cpu_load stopped: " + describe_wait_status(SIGKILL));
}

TEST_CASE("a probe killed by a signal says so in describe_wait_status's words", "[latency]") {
    latency::RunningProbe probe(cyclic_probe(), {});
    REQUIRE(::kill(probe.pgid(), SIGKILL) == 0);
    auto why = failure_once_dead([&] { return probe.failure(); });
    REQUIRE(why);
    CHECK(*why == "cyclic probe: " + describe_wait_status(SIGKILL));
}

TEST_CASE("contest latency next to a load that does no work says so, as contest load does",
          "[latency][e2e]") {
    test::ScratchDir scratch("latency-idle-load");
    // A dbench that never reports an operation: dbench_load runs and does no work.
    const auto bin = scratch / "bin";
    std::filesystem::create_directories(bin);
    {
        std::ofstream fake(bin / "dbench");
        fake << "#!/bin/sh\nexec sleep 600\n";
    }
    std::filesystem::permissions(bin / "dbench", std::filesystem::perms::owner_all);
    const std::string path = "PATH=" + bin.string() + ":/usr/sbin:/usr/bin:/bin";
    auto run = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = {"env", path, CONTEST_BINARY};
        argv.insert(argv.end(), args.begin(), args.end());
        return test::finish_contest(test::start_command(argv, scratch.path()), scratch.path());
    };
    const std::string work = (scratch / "work").string();

    auto load = run({"load", "dbench_load", "--duration", "2", "--workdir", work});
    INFO(load.err);
    CHECK(load.exit_code == 1);
    CHECK_THAT(load.err, Catch::Contains("contest: dbench_load did no work"));

    auto latency = run({"latency", "--duration", "2", "--load", "dbench_load", "--workdir", work});
    INFO(latency.err);
    CHECK(latency.exit_code == load.exit_code);
    CHECK_THAT(latency.err, Catch::Contains("contest: dbench_load did no work"));

    // A load that does no work by design is refused by both, exit 2.
    auto by_design = run({"latency", "--duration", "1", "--load", "no_load"});
    CHECK(by_design.exit_code == 2);
    CHECK_THAT(by_design.err, Catch::StartsWith("contest: no_load does no work"));
    CHECK(run({"load", "no_load"}).exit_code == 2);
    CHECK(test::leftover_processes().empty());
}
