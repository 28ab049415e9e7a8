// The exec probe (--latency exec) and the user's own loads (--load-cmd):
// what one timed start covers, and end to end through the real binary what
// they count and time, what they cost, and that nothing they start outlives
// contest.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "contest/latency/exec_start.h"
#include "contest/latency/probe_sleeper.h"
#include "contest/sys/cpu_affinity.h"
#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;

namespace {

std::vector<std::string> run_args(const test::ScratchDir& dir, std::vector<std::string> more) {
    std::vector<std::string> args{"run",
                                  "--workdir",
                                  (dir / "work").string(),
                                  "--results",
                                  (dir / "results").string(),
                                  "--quiet",
                                  "--no-drop-caches",
                                  "-k",
                                  "exec-test"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The one result file of a run under dir/results, parsed.
json only_result(const test::ScratchDir& dir) {
    std::vector<std::filesystem::path> files;
    for (auto& e : std::filesystem::recursive_directory_iterator(dir / "results"))
        if (e.path().extension() == ".json") files.push_back(e.path());
    REQUIRE(files.size() == 1);
    return json::parse(test::slurp(files[0]));
}

const json& run_of(const json& result, const std::string& load) {
    for (const auto& r : result["runs"])
        if (r["load"] == load) return r;
    FAIL("no run under " << load);
    throw std::logic_error("unreachable");
}

// A workload of known length: 2 s of sleep, nothing else.
const std::vector<std::string> kTwoSeconds = {"-w", "command", "--workload-cmd", "sleep 2",
                                              "-n", "1",       "--warmup",       "0.5"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// N busy shells in one command: a load that wants N CPUs.
std::string spinners(unsigned n) {
    std::string script;
    for (unsigned i = 0; i < n; ++i) script += "while :; do :; done & ";
    return "spin=sh -c '" + script + "wait'";
}

}  // namespace

TEST_CASE(
    "a timed start covers the request to the reap: the program's run inside, no more than the call",
    "[latency][exec]") {
    const latency::ProgramStarts starts({"/bin/sleep", "0.05"});
    const std::int64_t before = latency::monotonic_ns();
    const std::int64_t sample = starts.time_one();
    const std::int64_t call = latency::monotonic_ns() - before;
    CHECK(sample >= 50'000'000);
    CHECK(sample <= call);
}

// The kernel's struct sigaction: glibc's sigaction refuses signal 32, which
// a starter can still leave ignored.
struct RawSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    std::uint64_t mask;
};

TEST_CASE("a timed start gives the program the signals its starter ignores at their default",
          "[latency][exec]") {
    struct sigaction ignore {
    }, old_pipe{}, old_usr1{};
    ignore.sa_handler = SIG_IGN;
    const RawSigaction raw_ignore{SIG_IGN, 0, nullptr, 0};
    RawSigaction old_32{};
    ::sigaction(SIGPIPE, &ignore, &old_pipe);
    ::sigaction(SIGUSR1, &ignore, &old_usr1);
    REQUIRE(::syscall(SYS_rt_sigaction, 32, &raw_ignore, &old_32, sizeof old_32.mask) == 0);
    // sh exits 0 only when it started with no signal ignored.
    const latency::ProgramStarts starts(
        {"/bin/sh", "-c", "grep -q '^SigIgn:[[:space:]]*0*$' /proc/$$/status"});
    const bool started = [&] {
        try {
            starts.time_one();
            return true;
        } catch (const std::exception&) {
            return false;
        }
    }();
    ::syscall(SYS_rt_sigaction, 32, &old_32, nullptr, sizeof old_32.mask);
    ::sigaction(SIGPIPE, &old_pipe, nullptr);
    ::sigaction(SIGUSR1, &old_usr1, nullptr);
    CHECK(started);
    const latency::ProgramStarts failing({"/bin/sh", "-c", "exit 3"});
    CHECK_THROWS_AS(failing.time_one(), EnvironmentError);
}

TEST_CASE("the exec probe starts its program at its pace over the workload and times each start",
          "[latency][exec][e2e]") {
    test::ScratchDir dir("exec-count");
    auto o = test::run_contest_binary(
        run_args(dir, with(kTwoSeconds, {"--latency", "exec", "no_load"})), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    const json r = run_of(only_result(dir), "no_load");
    REQUIRE(r["status"] == "ok");
    const json& p = r["latency"]["exec"];
    CHECK(p["probe"] == "exec");
    CHECK(p["period_ns"] == 200'000'000);
    CHECK(p["command"] == json::array({"/bin/true"}));
    CHECK(p["missed_ns"] == 100'000'000);
    // 2 s at 5 starts a second: 10 periods, a few more or less at the edges
    // and on a busy machine; every start a sample.
    const auto periods = p["latency"]["periods"].get<std::uint64_t>();
    const auto samples = p["latency"]["samples"].get<std::uint64_t>();
    CHECK(periods >= 6);
    CHECK(periods <= 12);
    CHECK(samples >= 5);
    CHECK(samples <= periods);
    // A start is a fork, an exec and a dynamic link: above 20 us, and no
    // start of /bin/true is longer than the window it was counted in.
    CHECK(p["latency"]["min_ns"].get<double>() > 20'000);
    CHECK(p["latency"]["max_ns"].get<double>() < r["wall_s"].get<double>() * 1e9);
    CHECK(p["latency"]["histogram"]["bins"].size() > 0);
    // The probe's CPU, the starts' included, is recorded and is contest's own.
    CHECK(p["probe_cpu"]["user_s"].get<double>() + p["probe_cpu"]["sys_s"].get<double>() > 0);
    CHECK(p["probe_cpu"]["cpu_pct"].get<double>() > 0);
    // The report has its block, as for the other probes.
    CHECK_THAT(o.out, Catch::Contains("no_load: exec latency (us)"));
}

TEST_CASE("a start slower than the threshold is counted missed", "[latency][exec][e2e]") {
    test::ScratchDir dir("exec-slow");
    auto o = test::run_contest_binary(
        run_args(dir, with(kTwoSeconds, {"--latency", "exec", "--latency-exec-cmd", "sleep 0.3",
                                         "--latency-exec-missed-ms", "250", "no_load"})),
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    const json result = only_result(dir);
    const json& p = run_of(result, "no_load")["latency"]["exec"];
    const auto samples = p["latency"]["samples"].get<std::uint64_t>();
    CHECK(samples >= 3);
    CHECK(p["latency"]["min_ns"].get<double>() >= 300e6);
    // Every start is missed; periods a start covered are skipped, and missed too.
    CHECK(p["latency"]["missed"] == p["latency"]["periods"]);
    CHECK(p["latency"]["skipped"].get<std::uint64_t>() >= 1);
    CHECK(p["missed_pct"].get<double>() == Approx(100));
}

TEST_CASE("contest latency --probe exec: the user's command, and bad commands refused",
          "[latency][exec][e2e]") {
    test::ScratchDir dir("exec-latency");
    auto o = test::run_contest_binary({"latency", "--probe", "exec", "--exec-cmd",
                                       "sh -c :", "--duration", "1", "--format", "json"},
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    auto j = json::parse(o.out);
    CHECK(j["command"][1] == "-c");
    CHECK(j["latency"]["samples"].get<std::uint64_t>() >= 3);
    CHECK(test::leftover_processes().empty());
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"latency", "--probe", "exec", "--exec-cmd", "no-such-program-x"},
              "no-such-program-x is not an executable file"},
             {{"latency", "--probe", "exec", "--exec-cmd", ""}, "needs a command"},
             {{"latency", "--exec-cmd", "true"}, "--exec-cmd is the exec probe's"},
             {{"run", "--latency", "cyclic", "--latency-exec-cmd", "true"},
              "--latency-exec-cmd is the exec probe's"},
         }) {
        auto bad = test::run_contest_binary(args, dir.path());
        INFO(bad.err);
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.err, Catch::Contains(says));
        CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    }
    // A program that does not end: said as such, and stopped with the probe.
    auto endless = test::run_contest_binary(
        {"latency", "--probe", "exec", "--exec-cmd", "sleep 600", "--duration", "1"}, dir.path());
    INFO(endless.err);
    CHECK(endless.exit_code == 1);
    CHECK_THAT(endless.err, Catch::Contains("sleep 600 had not ended when the window closed"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "a --load-cmd busy loop loads the machine: in every run's window it took as much CPU as the "
    "workload beside it",
    "[loads][exec][e2e]") {
    test::ScratchDir dir("load-cmd-spin");
    // The workload: single-threaded work, on one CPU with the spinner
    // (contest and its children inherit the test's CPU), so that the two
    // share that CPU alike whatever else the machine runs: the spinner's CPU
    // time over each run's window (LCPU%, which contest records) is then
    // about the workload's own, on an idle machine or a busy one. Not the
    // workload's slowdown, a wall time that other work on the machine
    // moves too (a build beside it: 1.06 where 1.3 was asked). A load that
    // does nothing (`sleep`) takes about none of it.
    struct PinnedToOneCpu {
        std::vector<int> before = cpus_of(0);
        PinnedToOneCpu() { pin_to_cpus(0, {before.back()}); }
        ~PinnedToOneCpu() { pin_to_cpus(0, before); }
    } pinned;
    const std::string work = "sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'";
    auto o = test::run_contest_binary(
        run_args(dir, {"-w", "command", "--workload-cmd", work, "-n", "3", "--warmup", "0.5",
                       "--load-cmd", spinners(1), "no_load", "spin"}),
        dir.path());
    INFO(o.err);
    INFO(o.out);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    const json result = only_result(dir);
    CHECK(result["loads"]["spin"]["command"][0] == "sh");
    int spun = 0;
    for (const auto& r : result["runs"]) {
        INFO(r.dump());
        if (r["load"] != "spin") {
            CHECK(r["load_cpu_pct"].get<double>() == 0);  // no load, no load's CPU
            continue;
        }
        ++spun;
        CHECK(r["load_not_counted"] == true);
        // Half the workload's at the least (a fair share is all of it).
        CHECK(r["load_cpu_pct"].get<double>() > 0.5 * r["cpu_pct"].get<double>());
    }
    CHECK(spun == 3);
    // No counter: Loads is "-" in the table, null in JSON, empty in CSV.
    CHECK_THAT(o.out, Catch::Contains("not counted (your command"));
    const std::string results = (dir / "results").string();
    auto j = test::run_contest_binary({"report", "--format", "json", results}, dir.path());
    REQUIRE(j.exit_code == 0);
    bool seen = false;
    const json report = json::parse(j.out);
    for (const auto& load : report["loads"])
        if (load["load"] == "spin")
            for (const auto& cell : load["rows"]) {
                CHECK(cell["loads"].is_null());
                seen = true;
            }
    CHECK(seen);
    auto csv = test::run_contest_binary({"report", "--format", "csv", results}, dir.path());
    REQUIRE(csv.exit_code == 0);
    const auto at = csv.out.find("\nspin,");
    REQUIRE(at != std::string::npos);
    const auto line = csv.out.substr(at + 1, csv.out.find('\n', at + 1) - at - 1);
    INFO(line);
    CHECK(line.find(",,,,,,,") != std::string::npos);  // the seven loads_* fields empty
}

TEST_CASE("a --load-cmd with a typo'd option fails every run, its error line in the reason",
          "[loads][exec][load-cmd][e2e]") {
    test::ScratchDir dir("load-cmd-typo");
    auto o = test::run_contest_binary(
        run_args(dir, {"-w", "command", "--workload-cmd", "sleep 1", "--warmup", "0.5", "-n", "2",
                       "--load-cmd",
                       "typo=sh -c 'echo \"stress-ng: unrecognized option --cpux\" >&2; exit 2'",
                       "typo"}),
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);  // some runs failed
    CHECK(test::leftover_processes().empty());
    const auto result = only_result(dir);
    REQUIRE(result["runs"].size() == 2);
    for (const auto& run : result["runs"]) {
        CHECK(run["status"] == "load_failed");
        CHECK_THAT(
            run["reason"].get<std::string>(),
            Catch::Contains("exit 2") && Catch::Contains("stress-ng: unrecognized option --cpux"));
    }
    CHECK_THAT(o.err, Catch::Contains("typo run 1: typo stopped: its command ended with exit 2"));
    CHECK_THAT(o.err, !Catch::Contains("started again"));
}

TEST_CASE("a --load-cmd that ends by itself after a good while is started again, and said",
          "[loads][exec][load-cmd][e2e][slow]") {
    test::ScratchDir dir("load-cmd-again");
    auto o = test::run_contest_binary(
        run_args(dir, {"-w", "command", "--workload-cmd", "sleep 6.5", "--warmup", "0.2", "-n", "1",
                       "--load-cmd", "nap=sleep 5.2", "nap"}),
        dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    const auto result = only_result(dir);
    const auto& run = result["runs"][0];
    CHECK(run["status"] == "ok");
    CHECK(run["load_restarts"] == 1);
    CHECK_THAT(o.err, Catch::Contains("nap run 1: its command ended by itself and was started "
                                      "again 1 time"));
}

TEST_CASE("a units command (--load-cmd-units) counts the load's work", "[loads][exec][e2e]") {
    test::ScratchDir dir("load-cmd-units");
    auto o =
        test::run_contest_binary({"load", "lines", "--duration", "2", "--format", "json",
                                  "--workdir", (dir / "work").string(), "--load-cmd",
                                  "lines=sh -c 'while :; do echo x >> out; sleep 0.01; done'",
                                  "--load-cmd-units", "lines=sh -c 'cat out 2>/dev/null | wc -l'"},
                                 dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    auto j = json::parse(o.out);
    CHECK(j["unit"] == "units");
    // 2 s of a line every 10 ms: tens to about 200, whatever the machine.
    CHECK(j["units"].get<double>() > 10);
    CHECK(j["units"].get<double>() < 400);
    CHECK(j["cpu_pct"].get<double>() > 0);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("with --warmup 0 a load is not failed for the warm-up it did not have, but for no work",
          "[loads][exec][e2e]") {
    test::ScratchDir dir("warmup-zero");
    auto o = test::run_contest_binary(
        run_args(dir, {"--runs", "1", "--warmup", "0", "--workload", "command", "--workload-cmd",
                       "sleep 1", "--load-cmd", "idle=sleep 100", "--load-cmd-units", "idle=echo 5",
                       "cpu_load", "idle"}),
        dir.path());
    INFO(o.err);
    CHECK(test::leftover_processes().empty());
    const json result = only_result(dir);
    const json cpu = run_of(result, "cpu_load");
    CHECK(cpu["status"] == "ok");
    CHECK(cpu["load_units"].get<double>() > 0);
    const json idle = run_of(result, "idle");
    CHECK(idle["status"] == "load_failed");
    CHECK_THAT(idle["reason"].get<std::string>(), Catch::Contains("did no work during the run"));
}

TEST_CASE(
    "load names of --load-cmd: contest's own and bad ones refused in one line, listed by loads",
    "[loads][exec][e2e]") {
    test::ScratchDir dir("load-cmd-names");
    for (const auto& [spec, says] : std::vector<std::pair<std::string, std::string>>{
             {"cpu_load=true", "cpu_load is contest's own"},
             {"all=true", "all is contest's own"},
             {"Big-Name=true", "lowercase letters, digits and '_'"},
             {"empty=", "the command is empty"},
             {"nameless", "must be NAME=COMMAND"},
         }) {
        auto bad = test::run_contest_binary({"loads", "--load-cmd", spec}, dir.path());
        INFO(spec << ": " << bad.err);
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.err, Catch::Contains(says));
        CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    }
    auto units_first =
        test::run_contest_binary({"loads", "--load-cmd-units", "x=true"}, dir.path());
    CHECK(units_first.exit_code == 2);
    CHECK_THAT(units_first.err, Catch::Contains("x is no --load-cmd"));

    std::ofstream(dir / "mine.conf") << "load-cmd = spin=sh -c 'while :; do :; done'\n";
    auto listed =
        test::run_contest_binary({"loads", "--config", (dir / "mine.conf").string()}, dir.path());
    INFO(listed.err);
    REQUIRE(listed.exit_code == 0);
    CHECK_THAT(listed.out, Catch::Contains("spin"));
    CHECK_THAT(listed.out, Catch::Contains("your command: sh -c 'while :; do :; done'"));
}

TEST_CASE("Ctrl-C during a run with a --load-cmd and the exec probe leaves no process",
          "[loads][exec][e2e]") {
    test::ScratchDir dir("load-cmd-intr");
    pid_t contest = test::start_contest(
        run_args(dir, {"-w", "command", "--workload-cmd", "sleep 30", "-n", "1", "--warmup", "0.5",
                       "--latency", "exec", "--load-cmd", spinners(2), "spin"}),
        dir.path());
    // The load's shells and the probe at work (the warm-up is half a second).
    std::this_thread::sleep_for(std::chrono::seconds(3));
    REQUIRE(::kill(contest, SIGINT) == 0);
    auto o = test::finish_contest(contest, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 130);
    // The test adopts orphans: a spinner or a start that outlived contest is here.
    CHECK(test::leftover_processes().empty());
}
