// `contest bisect` through real guests (TCG): one whole step. The tree is
// the kbuild stand-in whose bzImage and modules are Debian's kernel
// package's, so every commit boots the same kernel; its ends' verdict is
// the state's (as a resumed bisection's is: the ends' rounds from its
// ends/ folder), so the step is what is tested: the tested commit built
// from the tree, booted in guests in the same rounds as both ends, judged
// after each round, and, the same kernel as both ends, skipped when the
// rounds cannot class it; git then has only skipped commits left and says
// which the first bad one could be.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "contest/bisect/batch_files.h"
#include "contest/bisect/bisect_state.h"
#include "contest/result/result_file.h"
#include "contest/run/record/result_writer.h"
#include "contest/sys/journal_file.h"
#include "kbuild_stand_in.h"
#include "stand_in_qemu.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::bisect;
namespace fs = std::filesystem;

namespace {

// An ends' file: three rounds of no_load, Time `base` +- a hair.
void write_ends_file(const fs::path& folder, const std::string& label, double base) {
    ResultFile f;
    f.label = label;
    f.contest_version = "test";
    f.started_at = f.finished_at = "2026-12-04T00:00:00Z";
    f.complete = true;
    for (int round = 1; round <= 3; ++round) {
        RunRecord r;
        r.load = "no_load";
        r.index = r.round = round;
        r.wall_s = base + 0.1 * (round - 2) * (label == "bad" ? 1 : -1);
        r.cpu_pct = 90;
        f.runs.push_back(r);
    }
    fs::create_directories(folder / label);
    ResultWriter(folder / label / "ends.json").save(f);
}

}  // namespace

TEST_CASE(
    "contest bisect takes a whole step through real guests: built, booted with both ends, "
    "judged, skipped",
    "[vm][vm-bisect]") {
    test::StandIn s;
    s.use_real_image();
    const std::string good = test::sh(s.tree, "git rev-parse HEAD");
    test::sh(s.tree,
             "echo CONFIG_TWO=y >> options && git -c user.name=t -c user.email=t@t commit "
             "-qam two && echo CONFIG_THREE=y >> options && git -c user.name=t -c "
             "user.email=t@t commit -qam three");
    const std::string middle = test::sh(s.tree, "git rev-parse HEAD~1");
    const std::string bad = test::sh(s.tree, "git rev-parse HEAD");
    const std::string before = s.state();
    const fs::path results = s.scratch / "bisect";
    // The ends told apart already, as a resumed bisection has them.
    BisectState state;
    state.tree = test::sh(s.tree, "git rev-parse --show-toplevel");
    state.good = good;
    state.bad = bad;
    state.measure = "time:no_load";
    state.place = "kernel";
    state.ends_state = EndsState::differ;
    state.ends_rounds = 3;
    state.shift = 1;
    state.shift_sd = 0.2;
    state.ends_p = 0.001;
    state.ends_why = "the ends differ (made by the test)";
    // The words after -- as the bisection was started with them: a resume
    // with other words is refused.
    const std::vector<std::string> run_words{"--vm-accel", "tcg",
                                             // A second vCPU under TCG is a second host
                                             // thread taken from the tests beside.
                                             "--vm-cpus", "1", "-w", "command", "--workload-cmd",
                                             "true", "--workdir", (s.scratch / "work").string(),
                                             "no_load"};
    state.run_words = run_words;
    // As it was started: the resume below gives the same rule.
    state.step_max_rounds = 2;
    fs::create_directories(results);
    write_bisect_state(results, state);
    write_ends_file(results / "ends", "good", 1.0);
    write_ends_file(results / "ends", "bad", 2.0);

    const auto o = test::run_contest_binary({"bisect",
                                             "--good",
                                             s.tree.string() + "@" + good,
                                             "--bad",
                                             s.tree.string() + "@" + bad,
                                             "--measure",
                                             "time:no_load",
                                             "--step-max-rounds",
                                             "2",
                                             "--results",
                                             results.string(),
                                             "--",
                                             run_words[0],
                                             run_words[1],
                                             run_words[2],
                                             run_words[3],
                                             run_words[4],
                                             run_words[5],
                                             run_words[6],
                                             run_words[7],
                                             run_words[8],
                                             run_words[9],
                                             run_words[10]},
                                            s.scratch.path());
    INFO(o.err);
    INFO(o.out);
    // Only the skipped commit left: the first bad one is it or the bad end.
    CHECK(o.exit_code == 1);
    const BisectState after = read_bisect_state(results);
    CHECK(after.finished);
    REQUIRE(after.steps.size() == 1);
    const BisectStep& step = after.steps.front();
    CHECK(step.commit == middle);
    CHECK(step.subject == "two");
    CHECK(step.word == "skip");
    CHECK(step.rounds == 2);
    CHECK(step.seconds > 0);
    // Its time split: the commit's build (the stand-in's, quick but made
    // here), the guests' (6 of them) and their boots within that.
    CHECK_FALSE(step.cache_hit);
    CHECK(step.build_s > 0);
    CHECK(step.boots_s > 0);
    CHECK(step.guests_s > step.boots_s);
    CHECK(step.seconds > step.guests_s / 2);
    CHECK(after.first_bad.empty());
    CHECK(after.could_be.size() == 2);
    CHECK(after.emulated);
    // The step's files: each label booted in both rounds, the tested commit built.
    for (const char* label : {"good", "bad", "tested"}) {
        INFO(label);
        const auto files = test::result_files(results / step.folder / label);
        REQUIRE(files.size() == 1);
        const ResultFile f = read_result_file(files.front());
        CHECK(f.runs.size() == 2);
        for (const auto& r : f.runs) CHECK(r.ok());
    }
    const std::string tested = test::slurp(test::result_files(results / step.folder / "tested")[0]);
    CHECK(tested.find(middle) != std::string::npos);
    CHECK_THAT(test::slurp(results / "bisect.log"), Catch::Contains("git bisect skip " + middle));
    // The KCIDB export of the files these guests wrote names each label's
    // commit (issue 55 finding 7: a test's hand-made field once hid that
    // real files lacked it).
    const auto exported = test::run_contest_binary(
        {"export", "--origin", "test", (results / step.folder).string()}, s.scratch.path());
    INFO(exported.err);
    REQUIRE(exported.exit_code == 0);
    std::map<std::string, std::string> commit_of;
    // (Held: a range-for over a member of parse()'s temporary reads freed
    // memory, which once made this check fail on right output.)
    const nlohmann::json submission = nlohmann::json::parse(exported.out);
    for (const auto& c : submission.at("checkouts"))
        commit_of[c.at("misc").at("label")] = c.value("git_commit_hash", "");
    CHECK(commit_of["good"] == good);
    CHECK(commit_of["bad"] == bad);
    CHECK(commit_of["tested"] == middle);
    CHECK_THAT(o.out, Catch::Contains("only skipped commits left"));
    CHECK_THAT(o.out, Catch::Contains("emulated (TCG)"));
    CHECK_THAT(o.out, Catch::Contains(", of it booting "));
    CHECK(s.state() == before);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "a bisection in guests cut short in a batch takes the batch on from its run's journal: its "
    "rounds kept, each once",
    "[bisect][e2e]") {
    test::StandIn s;  // two commits: base (good) and next (bad)
    test::ScratchDir dir("bisect-take-on");
    test::put_stand_in_qemu(dir / "bin", dir / "booted", "none", 0);
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const fs::path results = dir / "bisect";
    const std::vector<std::string> words{"bisect",
                                         "--good",
                                         s.tree.string() + "@" + s.base,
                                         "--bad",
                                         s.tree.string() + "@" + s.next,
                                         "--measure",
                                         "time:no_load",
                                         "--ends-max-rounds",
                                         "4",
                                         "--results",
                                         results.string(),
                                         "--",
                                         "--vm-accel",
                                         "tcg",
                                         "--vm-cpus",
                                         "1",
                                         "--vm-disk",
                                         "64",
                                         "-w",
                                         "command",
                                         "--workload-cmd",
                                         "sleep 0.3",
                                         "--warmup",
                                         "0",
                                         "--timeline-hz",
                                         "0",
                                         "--no-drop-caches",
                                         "--workdir",
                                         (dir / "work").string(),
                                         "no_load"};
    const pid_t pid = test::start_contest(words, dir.path());
    // A round and a half: a turn of round 2 at least.
    REQUIRE(test::wait_for_runs_saved(results / "ends", 3));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    test::leftover_processes();  // what the killed contest left, killed and reaped
    const std::size_t before = test::runs_saved(results / "ends");

    // The same command again: the ends' batch taken on, not set aside.
    const auto o = test::run_contest_binary(words, dir.path());
    INFO(o.err);
    CHECK((o.exit_code == 0 || o.exit_code == 1));  // an answer, or the ends told apart not
    CHECK(o.err.find("taking on " + (results / "ends").string()) != std::string::npos);
    CHECK_FALSE(fs::exists(results / "ends.interrupted-1"));
    std::size_t after = 0;
    for (const std::string label : {"good", "bad"}) {
        INFO(label);
        std::vector<std::string> bad_files;
        const auto files = read_result_paths({results / "ends" / label}, bad_files);
        REQUIRE(files.size() == 1);  // one file a label: the cut one, continued
        CHECK(files[0].complete);
        std::multiset<int> rounds;
        for (const auto& r : files[0].runs) rounds.insert(r.round);
        // Each round once, from 1 on: the rounds before the kill kept.
        CHECK(std::set<int>(rounds.begin(), rounds.end()).size() == rounds.size());
        CHECK(*rounds.begin() == 1);
        CHECK(static_cast<std::size_t>(*rounds.rbegin()) == rounds.size());
        after += files[0].runs.size();
    }
    CHECK(after > before);
    const BisectState state = read_bisect_state(results);
    CHECK(state.ends_rounds == after / 2);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a cut batch is taken on only from one run's journal of its own, read as untrusted",
          "[bisect]") {
    test::ScratchDir dir("interrupted-run");
    const fs::path batch = dir / "ends";
    // An incomplete file of label good, and its run's journal beside it.
    ResultFile f;
    f.label = "good";
    f.contest_version = "test";
    f.started_at = "2026-12-06T00:00:00Z";
    RunRecord r;
    r.load = "no_load";
    r.index = r.round = 1;
    r.wall_s = 1;
    f.runs.push_back(r);
    fs::create_directories(batch / "good");
    ResultWriter(batch / "good" / "s.json").save(f);
    const fs::path journal = batch / "good" / "s.run-journal";
    const nlohmann::json cut = {
        {"schema", kRunJournalSchema},
        {"turns",
         {{{"round", 1}, {"label", 0}, {"loads", {"no_load"}}, {"status", "done"}},
          {{"round", 2}, {"label", 0}, {"loads", {"no_load"}}, {"status", "pending"}}}},
        {"results", {(batch / "good" / "s.json").string(), (batch / "bad" / "s.json").string()}}};
    const auto with = [&](const std::function<void(nlohmann::json&)>& change) {
        nlohmann::json j = cut;
        change(j);
        test::put_file(journal, j.dump());
        return interrupted_run(batch);
    };
    CHECK(with([](nlohmann::json&) {}) == journal);
    // The last turn started and cut short: a turn not taken.
    CHECK(with([](nlohmann::json& j) { j["turns"][1]["status"] = "started"; }) == journal);
    // Nothing to take on: every turn done, the file complete, a file
    // outside the batch, another schema, fields of other types.
    CHECK_FALSE(with([](nlohmann::json& j) { j["turns"][1]["status"] = "done"; }));
    CHECK_FALSE(with([](nlohmann::json& j) { j["turns"][1]["status"] = 3; }));
    CHECK_FALSE(with([](nlohmann::json& j) { j["turns"][1] = "pending"; }));
    CHECK_FALSE(with([](nlohmann::json& j) { j["turns"] = {{"status", "pending"}}; }));
    CHECK_FALSE(with([](nlohmann::json& j) { j["results"][1] = 7; }));
    CHECK_FALSE(
        with([&](nlohmann::json& j) { j["results"][1] = (dir / "elsewhere.json").string(); }));
    CHECK_FALSE(with([](nlohmann::json& j) { j["schema"] = kRunJournalSchema + 1; }));
    CHECK_FALSE(with([](nlohmann::json& j) { j.erase("results"); }));
    f.complete = true;
    ResultWriter(batch / "good" / "s.json").save(f);
    CHECK_FALSE(with([](nlohmann::json&) {}));
    f.complete = false;
    ResultWriter(batch / "good" / "s.json").save(f);
    // Two runs' journals: not one run to take on.
    CHECK(with([](nlohmann::json&) {}) == journal);
    test::put_file(batch / "good" / "t.run-journal", cut.dump());
    CHECK_FALSE(interrupted_run(batch));
}
