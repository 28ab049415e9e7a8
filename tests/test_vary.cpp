// `contest run --vary`, through the binary: a plain file stands in for the
// kernel setting (the test's folder is named by CONTEST_TEST_KNOB_ROOT, the
// tests' switch for stand-ins), so the tests touch no real setting; the
// workload appends the knob's content to a log at every run, which shows
// what was set when.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "contest/analysis/build_report_model.h"
#include "contest/observe/block_device.h"
#include "contest/report/report_options.h"
#include "contest/run/plan/run_order.h"
#include "contest/sys/errors.h"
#include "contest/sys/knob_file.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The tests' switch, spelled as docs/vary.md gives it.

// The folder whose plain files stand in for kernel settings in the binary
// the test starts, for as long as this lives.
struct StandInRoot {
    explicit StandInRoot(const fs::path& root) { ::setenv(kTestKnobRootVariable, root.c_str(), 1); }
    ~StandInRoot() { ::unsetenv(kTestKnobRootVariable); }
    StandInRoot(const StandInRoot&) = delete;
    StandInRoot& operator=(const StandInRoot&) = delete;
};

struct VaryFixture {
    test::ScratchDir dir;
    StandInRoot stand_in{dir.path()};
    fs::path knob, log;
    explicit VaryFixture(const std::string& tag) : dir("vary-" + tag) {
        knob = dir / "knob";
        log = dir / "log";
        std::ofstream(knob) << "orig\n";
    }
    // `contest run` with the command workload logging the knob, plus extra.
    std::vector<std::string> args(const std::string& workload_tail,
                                  std::vector<std::string> extra) const {
        std::vector<std::string> a{
            "run",
            "-k",
            "L",
            "-w",
            "command",
            "--workload-cmd",
            "sh -c 'cat " + knob.string() + " >> " + log.string() + "" + workload_tail + "'",
            "--workdir",
            (dir / "work").string(),
            "--results",
            (dir / "results").string(),
            "--warmup",
            "0",
            "--no-drop-caches",
            "--quiet"};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    std::string knob_now() const { return test::slurp(knob); }
    std::vector<std::string> logged() const {
        std::istringstream in(test::slurp(log));
        std::vector<std::string> out;
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }
    fs::path note() const { return dir / "work" / "vary-restore.json"; }
};

// Waits until the workload has logged `lines` runs.
bool wait_for_runs(const VaryFixture& f, std::size_t lines) {
    for (int i = 0; i < 600; ++i) {
        if (f.logged().size() >= lines) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

}  // namespace

TEST_CASE("run --vary writes each value before its runs, in the planned order, and labels by value",
          "[vary][e2e]") {
    VaryFixture f("order");
    auto o = test::run_contest_binary(
        f.args("", {"-n", "3", "--seed", "42", "--vary", f.knob.string() + "=a,b,c", "no_load"}),
        f.dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    // The plan for 3 values of no_load, 3 rounds, seed 42: the values in that order.
    const auto plan = plan_runs({"no_load"}, 3, RunOrder::shuffled, 42, 3);
    std::vector<std::string> expected;
    for (const auto& step : plan) expected.push_back(std::string(1, char('a' + step.label)));
    CHECK(f.logged() == expected);
    CHECK(expected != std::vector<std::string>{"a", "b", "c", "a", "b", "c", "a", "b", "c"});
    CHECK(f.knob_now() == "orig\n");
    CHECK_FALSE(fs::exists(f.note()));
    CHECK(o.err.find("knob restored to 'orig'") != std::string::npos);

    const auto files = test::result_files(f.dir / "results");
    REQUIRE(files.size() == 3);
    std::string group;
    for (std::size_t v = 0; v < 3; ++v) {
        const std::string value(1, char('a' + v));
        json j = json::parse(test::slurp(files[v]));
        CHECK(files[v].parent_path().filename() == "L,knob=" + value);
        CHECK(j["label"] == "L,knob=" + value);
        CHECK(j["config"]["vary"]["values"]["knob"] == value);
        CHECK(j["config"]["vary"]["knobs"][0]["original"] == "orig");
        if (v == 0) group = j["config"]["vary"]["group"];
        CHECK(j["config"]["vary"]["group"] == group);
        REQUIRE(j["runs"].size() == 3);
        for (int r = 0; r < 3; ++r) CHECK(j["runs"][r]["round"] == r + 1);
    }
    CHECK(o.out.find("L,knob=b") != std::string::npos);  // the table has a row per value

    // compare pairs the two values' runs by round: they share the vary group.
    auto c = test::run_contest_binary(
        {"compare", "--results", (f.dir / "results").string(), "L,knob=a", "L,knob=b"},
        f.dir.path());
    INFO(c.out << c.err);
    CHECK(c.exit_code == 0);
    CHECK(c.out.find("p: paired t on per-round log differences") != std::string::npos);
    CHECK(c.out.find("Against the baseline: paired by round under no_load") != std::string::npos);
}

TEST_CASE(
    "two --vary options make every combination, labelled by --vary-label, too many are "
    "refused",
    "[vary][e2e]") {
    VaryFixture f("grid");
    std::ofstream(f.dir / "knob2") << "x\n";
    auto o = test::run_contest_binary(
        f.args("; cat " + (f.dir / "knob2").string() + " >> " + f.log.string(),
               {"-n", "1", "--vary", f.knob.string() + "=a,b", "--vary",
                (f.dir / "knob2").string() + "=y,z", "--vary-label", "{label}-{value}-{value2}",
                "no_load"}),
        f.dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    std::set<std::string> labels;
    for (const auto& file : test::result_files(f.dir / "results"))
        labels.insert(file.parent_path().filename().string());
    CHECK(labels == std::set<std::string>{"L-a-y", "L-a-z", "L-b-y", "L-b-z"});
    CHECK(f.logged().size() == 8);  // each run logged both knobs
    CHECK(test::slurp(f.dir / "knob2") == "x\n");

    auto big =
        test::run_contest_binary(f.args("", {"--vary", f.knob.string() + "=1,2,3,4,5", "--vary",
                                             (f.dir / "knob2").string() + "=1,2,3,4", "no_load"}),
                                 f.dir.path());
    CHECK(big.exit_code == 2);
    CHECK(big.err.find("more than 16 combinations") != std::string::npos);
}

TEST_CASE("a value the knob refuses is exit 2 before any run, the others put back", "[vary][e2e]") {
    // /proc/sys/kernel/osrelease is read-only for root too (a 0444 sysctl:
    // the write fails with EACCES or EPERM), which chmod on a plain file is not.
    VaryFixture f("refused");
    const std::string release = test::slurp("/proc/sys/kernel/osrelease");
    auto o = test::run_contest_binary(
        f.args("", {"--vary", f.knob.string() + "=a,b", "--vary",
                    "/proc/sys/kernel/osrelease=9.9.9-refused", "no_load"}),
        f.dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("osrelease") != std::string::npos);
    CHECK(o.err.find("9.9.9-refused") != std::string::npos);
    CHECK(f.logged().empty());  // no run
    CHECK(test::result_files(f.dir / "results").empty());
    CHECK(f.knob_now() == "orig\n");
    CHECK_FALSE(fs::exists(f.note()));
    CHECK(test::slurp("/proc/sys/kernel/osrelease") == release);
}

TEST_CASE("the original value is restored after an error in the middle of the runs",
          "[vary][e2e]") {
    // After the first run, the results folder becomes a file: the next save fails.
    VaryFixture f("error");
    const std::string results = (f.dir / "results").string();
    auto o =
        test::run_contest_binary(f.args("; rm -rf " + results + "; touch " + results,
                                        {"-n", "2", "--vary", f.knob.string() + "=a,b", "no_load"}),
                                 f.dir.path());
    INFO(o.err);
    // A failed save stops the suite with what finished shown (exit 1: docs/robustness.md).
    CHECK(o.exit_code == 1);
    CHECK(o.err.find("saving the results failed") != std::string::npos);
    CHECK(f.logged().size() == 1);
    CHECK(f.knob_now() == "orig\n");
    CHECK_FALSE(fs::exists(f.note()));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("the original value is restored after SIGINT, SIGTERM and SIGHUP mid-run",
          "[vary][e2e]") {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        VaryFixture f("sig" + std::to_string(sig));
        pid_t pid = test::start_contest(
            f.args("; sleep 30", {"-n", "2", "--vary", f.knob.string() + "=a,b", "no_load"}),
            f.dir.path());
        REQUIRE(wait_for_runs(f, 1));
        CHECK(f.knob_now() != "orig\n");  // a value is set while the run runs
        ::kill(pid, sig);
        auto o = test::finish_contest(pid, f.dir.path());
        INFO("signal " << sig << ": " << o.err);
        CHECK(o.exit_code == 130);
        CHECK(f.knob_now() == "orig\n");
        CHECK_FALSE(fs::exists(f.note()));
        CHECK(test::leftover_processes().empty());
    }
}

TEST_CASE("after SIGKILL, the next start restores the original from the note and says so",
          "[vary][e2e]") {
    VaryFixture f("kill");
    pid_t pid = test::start_contest(
        f.args("; sleep 30", {"-n", "2", "--vary", f.knob.string() + "=a,b", "no_load"}),
        f.dir.path());
    REQUIRE(wait_for_runs(f, 1));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    test::leftover_processes();  // the orphaned `sleep 30`, killed and reaped
    REQUIRE(fs::exists(f.note()));
    const json note = json::parse(test::slurp(f.note()));
    CHECK(note["pid"] == pid);
    CHECK(note["knobs"][0]["original"] == "orig");
    CHECK(f.knob_now() != "orig\n");

    // The next start, without --vary: it restores, says so, and runs.
    auto o = test::run_contest_binary(f.args("", {"-n", "1", "no_load"}), f.dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.err.find("restored knob") != std::string::npos);
    CHECK(o.err.find(std::to_string(pid)) != std::string::npos);
    CHECK(f.logged().back() == "orig");
    CHECK(f.knob_now() == "orig\n");
    CHECK_FALSE(fs::exists(f.note()));
}

TEST_CASE("a --vary run killed mid-run is resumed from its journal: each value's file continued",
          "[vary][resume][e2e]") {
    VaryFixture f("resume");
    pid_t pid = test::start_contest(f.args("; sleep 0.3", {"-n", "3", "--seed", "5", "--vary",
                                                           f.knob.string() + "=a,b", "no_load"}),
                                    f.dir.path());
    REQUIRE(wait_for_runs(f, 3));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    test::leftover_processes();  // the orphaned workload, killed and reaped
    const auto files = test::result_files(f.dir / "results");
    REQUIRE(files.size() == 2);
    // One journal, beside the first value's file, naming both files.
    const fs::path journal = fs::path(files[0]).replace_extension(".run-journal");
    REQUIRE(fs::exists(journal));
    CHECK_FALSE(fs::exists(fs::path(files[1]).replace_extension(".run-journal")));
    const json j = json::parse(test::slurp(journal));
    REQUIRE(j["results"].size() == 2);
    CHECK(j["results"][0] == fs::absolute(files[0]).string());
    CHECK(j["results"][1] == fs::absolute(files[1]).string());
    std::size_t before = 0;
    for (const auto& file : files) before += json::parse(test::slurp(file))["runs"].size();
    REQUIRE(before < 6);

    // Resumed by the second value's file (its journal is found beside the
    // first's), no other word, from another folder: the killed run's knob
    // put back first, then only the runs the files lack, each value's
    // written before its runs.
    fs::create_directories(f.dir / "elsewhere");
    const std::size_t logged_before = f.logged().size();
    auto o = test::run_contest_binary({"run", "--resume", files[1].string()}, f.dir.path(),
                                      f.dir / "elsewhere");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.err.find("restored knob") != std::string::npos);
    CHECK(f.knob_now() == "orig\n");
    CHECK_FALSE(fs::exists(f.note()));
    CHECK(f.logged().size() - logged_before == 6 - before);
    CHECK(test::result_files(f.dir / "results").size() == 2);
    for (std::size_t v = 0; v < 2; ++v) {
        const json file = json::parse(test::slurp(files[v]));
        CHECK(file["complete"] == true);
        std::multiset<int> rounds;
        for (const auto& r : file["runs"]) rounds.insert(r["round"].get<int>());
        CHECK(rounds == std::multiset<int>{1, 2, 3});
    }
    // Each value's runs under its own value: the log's lines of the resumed
    // runs are the values of the turns the journal had left.
    for (const auto& turn : json::parse(test::slurp(journal))["turns"])
        CHECK(turn["status"] == "done");
    CHECK(fs::is_empty(f.dir / "elsewhere"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --vary iosched= with the workdir disk's own schedulers", "[vary][e2e]") {
    VaryFixture f("iosched");
    fs::create_directories(f.dir / "work");
    const BlockDevice dev = block_device_of((f.dir / "work").string());
    if (!dev.found) CONTEST_SKIP("the test folder is on no block device: " << dev.reason);
    const fs::path sched = fs::path("/sys/block") / dev.disk / "queue" / "scheduler";
    std::istringstream words(test::slurp(sched));
    std::vector<std::string> available;
    for (std::string w; words >> w;)
        available.push_back(w.front() == '[' ? w.substr(1, w.size() - 2) : w);
    std::string why;
    const auto current = read_knob_file(sched, why);
    if (!current || available.size() < 2 || ::access(sched.c_str(), W_OK) != 0)
        CONTEST_SKIP(sched.string() << " offers fewer than 2 schedulers or is not writable");
    const std::string other = available[0] == *current ? available[1] : available[0];
    auto o = test::run_contest_binary(
        f.args("", {"-n", "1", "--vary", "iosched=" + other + "," + *current, "no_load"}),
        f.dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(fs::exists(f.dir / "results" / ("L,iosched=" + other)));
    CHECK(fs::exists(f.dir / "results" / ("L,iosched=" + *current)));
    CHECK(read_knob_file(sched, why) == current);
}

TEST_CASE("report pairs by round the labels of one --vary run", "[vary][report]") {
    // Two values of a setting, 6 rounds on a machine that drifts 3% a round;
    // value b is 2% slower in every round. Paired by round the 2% shows;
    // Welch's t across the drift does not see it.
    auto make = [](const std::string& label, double factor, const std::string& group) {
        ResultFile f;
        f.label = label;
        f.path = label + ".json";
        f.complete = true;
        f.config = {{"order", "shuffled"}};
        if (!group.empty()) f.config["vary"] = {{"group", group}};
        for (int round = 1; round <= 6; ++round)
            for (const char* load : {"no_load", "io_load"}) {
                RunRecord r;
                r.load = load;
                r.index = round;
                r.round = round;
                const double noise = 1 + 0.001 * ((round * 7 + (load[0] == 'i')) % 5);
                r.wall_s = 100 * (1 + 0.03 * round) * factor * noise *
                           (std::string(load) == "io_load" ? 1.3 : 1);
                r.cpu_pct = 100;
                f.runs.push_back(r);
            }
        return f;
    };
    ReportOptions options;
    options.print_warnings = false;
    const auto paired = build_report_model({make("a", 1, "g1"), make("b", 1.02, "g1")}, options);
    const Cell* cell = paired.find_cell("no_load", "b");
    REQUIRE(cell);
    REQUIRE(cell->versus);
    REQUIRE(cell->versus->time_test);
    CHECK(cell->versus->time_test->method.starts_with("paired t"));
    CHECK(cell->versus->time_test->significant);
    CHECK(cell->versus->time_test->effect_pct == Approx(2).margin(0.2));
    bool noted = false;
    for (const auto& n : paired.notes)
        noted |= n.find("paired by round under") != std::string::npos;
    CHECK(noted);

    // The same runs from two separate runs (no shared group): Welch, not significant.
    const auto unpaired = build_report_model({make("a", 1, "g1"), make("b", 1.02, "g2")}, options);
    const Cell* u = unpaired.find_cell("no_load", "b");
    REQUIRE(u);
    REQUIRE(u->versus->time_test);
    CHECK(u->versus->time_test->method == "Welch t");
    CHECK_FALSE(u->versus->time_test->significant);
}

TEST_CASE("a --vary plan: every round runs every load under every value, shuffled",
          "[vary][run_order]") {
    const std::vector<std::string_view> loads = {"no_load", "cacherun", "io_load"};
    const auto plan = plan_runs(loads, 4, RunOrder::shuffled, 5, 3);
    REQUIRE(plan.size() == 4 * 3 * 3);
    std::set<std::vector<std::size_t>> orders;
    for (unsigned round = 1; round <= 4; ++round) {
        std::set<std::pair<std::size_t, std::size_t>> seen;
        std::vector<std::size_t> order;
        for (std::size_t k = 0; k < plan.size(); ++k) {
            const auto& step = plan[k];
            if (step.index != round) continue;
            seen.insert({step.label, step.load});
            order.push_back(step.label * 10 + step.load);
            if (step.load == 0) {  // cacherun straight after no_load, same value
                REQUIRE(k + 1 < plan.size());
                CHECK(plan[k + 1].load == 1);
                CHECK(plan[k + 1].label == step.label);
            }
        }
        CHECK(seen.size() == 9);
        orders.insert(order);
    }
    CHECK(orders.size() > 1);  // shuffled anew each round
    // Without --vary, the plan is the one the seed always gave.
    CHECK(plan_runs(loads, 4, RunOrder::shuffled, 5, 1) ==
          plan_runs(loads, 4, RunOrder::shuffled, 5));
    CHECK_THROWS_AS(plan_runs(loads, 2, RunOrder::blocks, 5, 2), UsageError);
}

TEST_CASE("a knob's current value is the bracketed word of a list of choices", "[vary]") {
    CHECK(chosen_value("none [mq-deadline] kyber bfq \n") == "mq-deadline");
    CHECK(chosen_value("always [madvise] never\n") == "madvise");
    CHECK(chosen_value("none voluntary (full) lazy\n") == "full");
    CHECK(chosen_value("60\n") == "60");
    CHECK(chosen_value("[x]\n") == "[x]");
}

namespace {

// contest with args under a 1 GiB address space (a read without a bound
// fails instead of filling the machine's memory), killed when it has not
// ended within 30 s: a hang fails the test instead of stopping the suite.
test::Outcome run_bounded(const std::vector<std::string>& args, const fs::path& dir, bool& hung) {
    std::vector<std::string> argv{"sh", "-c", "ulimit -v 1048576 && exec \"$0\" \"$@\"",
                                  CONTEST_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = test::start_command(argv, dir);
    hung = true;
    for (int i = 0; i < 600 && hung; ++i) {
        siginfo_t info{};
        hung = ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0;
        if (hung) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (hung) ::kill(pid, SIGKILL);
    return test::finish_contest(pid, dir);
}

// A refusal: exit 2, one line naming the path and saying `why`.
void check_refused(const test::Outcome& o, const fs::path& path, const std::string& why) {
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(path.string()) != std::string::npos);
    CHECK(o.err.find(why) != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("vary refuses a file outside /proc/sys and /sys and leaves it as it was", "[vary][e2e]") {
    VaryFixture f("outside");
    test::ScratchDir elsewhere("vary-elsewhere");
    const fs::path user_file = elsewhere / "notes.txt";
    const std::string content = "my notes\nsecond line, no newline at the end";
    std::ofstream(user_file) << content;
    auto o = test::run_contest_binary(
        f.args("", {"--vary", user_file.string() + "=a,b", "no_load"}), f.dir.path());
    check_refused(o, user_file, "outside /proc/sys and /sys");
    CHECK(test::slurp(user_file) == content);
    CHECK(f.logged().empty());
    CHECK(test::result_files(f.dir / "results").empty());
    CHECK_FALSE(fs::exists(f.note()));

    // A link in the stand-in folder to that file is refused the same way.
    const fs::path link = f.dir / "link";
    fs::create_symlink(user_file, link);
    o = test::run_contest_binary(f.args("", {"--vary", link.string() + "=a,b", "no_load"}),
                                 f.dir.path());
    check_refused(o, link, "it leads to " + fs::canonical(user_file).string());
    CHECK(test::slurp(user_file) == content);
    CHECK(fs::is_symlink(link));

    // A note in the workdir naming that file, as if a killed contest had
    // changed it: the next start does not write it either.
    fs::create_directories(f.dir / "work");
    std::ofstream(f.note()) << json{{"pid", test::a_gone_pid()},
                                    {"knobs",
                                     {{{"name", "notes.txt"},
                                       {"path", user_file.string()},
                                       {"original", "overwritten"}}}}}
                                   .dump();
    o = test::run_contest_binary(f.args("", {"-n", "1", "no_load"}), f.dir.path());
    INFO(o.err);
    CHECK(o.err.find("could not restore notes.txt") != std::string::npos);
    CHECK(o.err.find("stays for the next start") != std::string::npos);
    CHECK(test::slurp(user_file) == content);
    fs::remove(f.note());  // kept for a next try, which would warn again

    // Without the tests' switch, the stand-in folder is outside too.
    ::unsetenv(kTestKnobRootVariable);
    o = test::run_contest_binary(f.args("", {"--vary", f.knob.string() + "=a,b", "no_load"}),
                                 f.dir.path());
    check_refused(o, f.knob, "outside /proc/sys and /sys");
    CHECK(f.knob_now() == "orig\n");
}

TEST_CASE("vary refuses a FIFO, a device and a file over a page, without hanging", "[vary][e2e]") {
    VaryFixture f("special");
    bool hung = false;
    const fs::path fifo = f.dir / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto o =
        run_bounded(f.args("", {"--vary", fifo.string() + "=a,b", "no_load"}), f.dir.path(), hung);
    CHECK_FALSE(hung);
    check_refused(o, fifo, "it is a FIFO, not a kernel setting");

    o = run_bounded(f.args("", {"--vary", "/dev/zero=a,b", "no_load"}), f.dir.path(), hung);
    CHECK_FALSE(hung);
    check_refused(o, "/dev/zero", "outside /proc/sys and /sys");

    // The same device made in the stand-in folder (a nodev mount refuses to
    // open it: refused all the same).
    const fs::path zero = f.dir / "zero";
    if (::mknod(zero.c_str(), S_IFCHR | 0600, ::makedev(1, 5)) == 0) {
        o = run_bounded(f.args("", {"--vary", zero.string() + "=a,b", "no_load"}), f.dir.path(),
                        hung);
        CHECK_FALSE(hung);
        INFO(o.err);
        CHECK(o.exit_code == 2);
        CHECK(o.err.find(zero.string()) != std::string::npos);
    }

    const fs::path big = f.dir / "big";
    const std::string page_and_more(4097, '1');
    std::ofstream(big) << page_and_more;
    o = run_bounded(f.args("", {"--vary", big.string() + "=a,b", "no_load"}), f.dir.path(), hung);
    CHECK_FALSE(hung);
    check_refused(o, big, "more than 4096 bytes");
    CHECK(test::slurp(big) == page_and_more);
    CHECK(f.logged().empty());
    CHECK(test::result_files(f.dir / "results").empty());
}

TEST_CASE("a --vary label with a control byte is refused like a -k label", "[vary][e2e]") {
    VaryFixture f("control");
    auto o = test::run_contest_binary(
        f.args("", {"--vary", f.knob.string() + "=a\x01,b", "no_load"}), f.dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("'L,knob=a\\x01' has control characters") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);

    o = test::run_contest_binary(f.args("", {"--vary", f.knob.string() + "=a,b", "--vary-label",
                                             "{label}\n{value}", "no_load"}),
                                 f.dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("'L\\na' has control characters") != std::string::npos);
    CHECK(f.knob_now() == "orig\n");  // refused before any value was written
    CHECK(f.logged().empty());
    CHECK_FALSE(fs::exists(f.dir / "results"));
}

TEST_CASE("a start sweeps half-written files of gone contests from every folder it writes into",
          "[vary][e2e]") {
    VaryFixture f("sweep");
    const std::string gone = std::to_string(test::a_gone_pid()), alive = std::to_string(::getpid());
    const fs::path value_a = f.dir / "results" / "L,knob=a";
    fs::create_directories(value_a);
    std::ofstream(value_a / ("x.json.tmp." + gone)) << "{";
    std::ofstream(value_a / ("y.json.tmp." + alive)) << "{";
    auto o = test::run_contest_binary(
        f.args("", {"-n", "1", "--vary", f.knob.string() + "=a,b", "no_load"}), f.dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_FALSE(fs::exists(value_a / ("x.json.tmp." + gone)));
    CHECK(o.err.find((value_a / ("x.json.tmp." + gone)).string()) != std::string::npos);
    CHECK(fs::exists(value_a / ("y.json.tmp." + alive)));  // its contest may still write it

    // A --resume file outside results/L: its own folder is swept. (The file:
    // a finished run's, marked unfinished, so the resumed run has nothing to do.)
    o = test::run_contest_binary(f.args("", {"-n", "1", "no_load"}), f.dir.path());
    REQUIRE(o.exit_code == 0);
    auto files = test::result_files(f.dir / "results" / "L");
    REQUIRE(files.size() == 1);
    json interrupted = json::parse(test::slurp(files[0]));
    interrupted["complete"] = false;
    const fs::path kept = f.dir / "kept";
    fs::create_directories(kept);
    std::ofstream(kept / "r.json") << interrupted.dump();
    fs::remove(files[0]);
    // Its journal moved with it (STAMP.run-journal beside STAMP.json).
    fs::rename(fs::path(files[0]).replace_extension(".run-journal"), kept / "r.run-journal");
    std::ofstream(kept / ("r.json.tmp." + gone)) << "{";
    std::ofstream(kept / ("s.json.tmp." + alive)) << "{";
    o = test::run_contest_binary({"run", "--resume", (kept / "r.json").string()}, f.dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_FALSE(fs::exists(kept / ("r.json.tmp." + gone)));
    CHECK(fs::exists(kept / ("s.json.tmp." + alive)));
}
