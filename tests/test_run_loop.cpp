// The one loop that takes turns (run_rounds), driven through a fake
// RoundBackend: no load, workload, guest or reboot, only the loop's own
// logic. What it checks: every planned run is taken in the plan's order and
// saved as it comes; --runs auto stops when the rounds suffice; an interrupt
// keeps what finished (complete: false) and --resume takes only the rest;
// a failed save stops the loop; a --boot step's one turn writes its label's
// file alone and leaves it open; the backend is let go on every way out.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/result/result_file.h"
#include "contest/run/plan/knobs.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/errors.h"
#include "contest/sys/knob_file.h"
#include "contest/sys/progress.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// What the fake did, kept by the test (the backend itself is the loop's).
struct FakeLog {
    std::vector<std::string> turns;  // "round label load load ..."
    bool let_go = false;             // the backend destroyed
    bool begun = false;
    std::vector<std::string> described;  // the labels of the new files described
};

// Each run it takes is ok, its Time the load's base plus a hair of the
// round, so that --runs auto's CIs are narrow from the start.
class FakeBackend : public RoundBackend {
  public:
    FakeBackend(const RunPlan& plan, FakeLog& log) : plan_(plan), log_(log) {}
    ~FakeBackend() override { log_.let_go = true; }

    std::optional<unsigned> interrupt_in_round;  // throws Interrupted at its first turn
    std::optional<unsigned> fail_in_round;       // hands back a failed run there

    std::optional<latency::LatencyPlan> plan_probes() override { return std::nullopt; }
    void describe(ResultFile&, const LabelRun& label) const override {
        log_.described.push_back(label.label);
    }
    void begin(RunRecorder&) override { log_.begun = true; }
    void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                   RunRecorder& recorder) override {
        if (interrupt_in_round == index) throw Interrupted();
        std::string line = std::to_string(index) + " " + label.label;
        std::vector<RunRecord> runs;
        for (std::size_t k : loads) {
            const std::string load(plan_.load_names[k]);
            line += " " + load;
            RunRecord r;
            r.load = load;
            r.index = r.round = static_cast<int>(index);
            r.wall_s = (k == 0 ? 10.0 : 12.0) + 0.001 * index;
            r.cpu_pct = 90;
            if (fail_in_round == index) {
                r.status = RunStatus::workload_failed;
                r.reason = "the fake says so";
            }
            runs.push_back(r);
        }
        log_.turns.push_back(line);
        recorder.record(label, runs, 0.01);
    }

  private:
    const RunPlan& plan_;
    FakeLog& log_;
};

struct LoopBench {
    test::ScratchDir dir{"run-loop"};
    RunConfig config;
    Progress progress = Progress::for_stderr(true);
    FakeLog log;

    LoopBench() {
        config.label = "fake";
        config.loads = {"no_load", "cpu_load"};
        config.runs = 3;
        config.workload.kind = "command";
        config.workload.workload_cmd = "true";
        config.workload.workdir = config.load.workdir = dir / "work";
        config.results_dir = dir / "results";
        config.seed = 5;
        fs::create_directories(dir / "work");
    }

    // The loop over config's plan with a fake backend; what it returned, or
    // nullopt when it threw Interrupted.
    std::optional<RunOutcome> run(const std::function<void(FakeBackend&)>& set = nullptr,
                                  bool whole_run = true) {
        RunPlan plan = make_run_plan(config);
        planned = plan.runs_to_take();
        auto backend = std::make_unique<FakeBackend>(plan, log);
        if (set) set(*backend);
        std::optional<KnobGuard> no_knobs;
        LabelFiles files = run_label_files(config, "2026-12-03T00:00:00Z", {}, progress);
        files.complete_at_end = whole_run;
        try {
            return run_rounds(config, plan, std::move(backend), no_knobs, files, progress);
        } catch (const Interrupted&) {
            return std::nullopt;
        }
    }

    std::vector<ResultFile> files() const {
        std::vector<ResultFile> out;
        for (const auto& path : test::result_files(dir / "results" / "fake"))
            out.push_back(read_result_file(path));
        return out;
    }

    std::size_t planned = 0;
};

}  // namespace

TEST_CASE("the run loop takes every planned run in the plan's order and saves each as it comes",
          "[run_loop]") {
    LoopBench b;
    const RunPlan plan = make_run_plan(b.config);
    std::vector<std::string> expected;
    for (const auto& round : plan.rounds)
        for (const auto& turn : round.turns) {
            std::string line = std::to_string(round.index) + " fake";
            for (std::size_t k : turn.loads) line += " " + std::string(plan.load_names[k]);
            expected.push_back(line);
        }
    auto out = b.run();
    REQUIRE(out);
    CHECK(b.log.begun);
    CHECK(b.log.let_go);
    CHECK(b.log.turns == expected);
    CHECK(out->failed_runs == 0);
    CHECK(out->save_failure.empty());
    const auto files = b.files();
    REQUIRE(files.size() == 1);
    CHECK(files[0].complete);
    CHECK(files[0].runs.size() == 6);
    CHECK(b.log.described == std::vector<std::string>{"fake"});
}

TEST_CASE("the run loop under --runs auto stops once the rounds suffice, and says why",
          "[run_loop]") {
    LoopBench b;
    AutoRuns auto_runs;
    auto_runs.max_runs = 15;
    b.config.auto_runs = auto_runs;
    b.config.runs = 15;
    auto out = b.run();
    REQUIRE(out);
    // Time varies by a thousandth a round: its CI is under 2% from the
    // first round the rule looks at.
    CHECK(b.log.turns.size() == kMinAutoRounds);
    const auto files = b.files();
    REQUIRE(files.size() == 1);
    CHECK(files[0].runs.size() == 2 * kMinAutoRounds);
    CHECK_FALSE(files[0].stopped_because.empty());
    CHECK(files[0].complete);
}

TEST_CASE("the run loop, interrupted, keeps what finished, --resume takes only the rest",
          "[run_loop]") {
    LoopBench b;
    auto out = b.run([](FakeBackend& f) { f.interrupt_in_round = 2; });
    CHECK_FALSE(out);
    CHECK(b.log.let_go);
    auto files = b.files();
    REQUIRE(files.size() == 1);
    CHECK_FALSE(files[0].complete);
    CHECK(files[0].runs.size() == 2);  // round 1's
    const auto first = test::result_files(b.dir / "results" / "fake").front();

    b.log = {};
    b.config.resume = {first};
    out = b.run();
    REQUIRE(out);
    CHECK(b.planned == 4);
    for (const auto& turn : b.log.turns) CHECK_FALSE(turn.starts_with("1 "));
    files = b.files();
    REQUIRE(files.size() == 1);  // the same file, continued
    CHECK(files[0].complete);
    CHECK(files[0].runs.size() == 6);
}

TEST_CASE("the run loop tells the run's journal each round as it starts and once it is saved",
          "[run_loop][resume]") {
    LoopBench b;
    RunPlan plan = make_run_plan(b.config);
    auto backend = std::make_unique<FakeBackend>(plan, b.log);
    backend->interrupt_in_round = 2;
    std::optional<KnobGuard> no_knobs;
    LabelFiles files = run_label_files(b.config, "2026-12-03T00:00:00Z", {}, b.progress);
    std::vector<std::string> marks;
    files.round_mark = [&](const PlannedRound& round, bool done) {
        // Each mark after the runs before it are saved: the file holds them.
        const auto saved = b.files();
        marks.push_back(std::to_string(round.index) + (done ? " done " : " started ") +
                        std::to_string(saved.empty() ? 0 : saved[0].runs.size()));
    };
    CHECK_THROWS_AS(run_rounds(b.config, plan, std::move(backend), no_knobs, files, b.progress),
                    Interrupted);
    // Round 2 was cut short: started, never done.
    CHECK(marks == std::vector<std::string>{"1 started 0", "1 done 2", "2 started 2"});
}

TEST_CASE("the run loop counts a failed run as data and goes on", "[run_loop]") {
    LoopBench b;
    auto out = b.run([](FakeBackend& f) { f.fail_in_round = 2; });
    REQUIRE(out);
    CHECK(out->failed_runs == 2);
    CHECK(b.log.turns.size() == 3);
    const auto files = b.files();
    REQUIRE(files.size() == 1);
    CHECK(files[0].runs.size() == 6);
    CHECK(std::count_if(files[0].runs.begin(), files[0].runs.end(),
                        [](const RunRecord& r) { return !r.ok(); }) == 2);
}

TEST_CASE("the run loop stops at a save that fails, and says so in the outcome", "[run_loop]") {
    LoopBench b;
    // Where the results go is below a regular file: no folder can be made there.
    std::ofstream(b.dir / "not-a-folder") << "x";
    b.config.results_dir = b.dir / "not-a-folder" / "results";
    auto out = b.run();
    REQUIRE(out);
    CHECK_FALSE(out->save_failure.empty());
    CHECK(b.log.turns.size() == 1);  // the first run's save failed: nothing after it
    CHECK(b.log.let_go);
}

TEST_CASE("the run loop over one turn (a --boot step's) leaves the file open for the next",
          "[run_loop]") {
    LoopBench b;
    RunPlan plan = make_run_plan(b.config);
    plan.rounds = {PlannedRound{2, {LabelTurn{0, {1, 0}}}}};
    auto backend = std::make_unique<FakeBackend>(plan, b.log);
    std::optional<KnobGuard> no_knobs;
    LabelFiles files = run_label_files(b.config, "2026-12-03T00:00:00Z", {}, b.progress);
    files.complete_at_end = false;
    const RunOutcome out =
        run_rounds(b.config, plan, std::move(backend), no_knobs, files, b.progress);
    CHECK(b.log.turns == std::vector<std::string>{"2 fake cpu_load no_load"});
    const auto saved = b.files();
    REQUIRE(saved.size() == 1);
    CHECK_FALSE(saved[0].complete);
    CHECK(saved[0].runs.size() == 2);
    CHECK(out.labels.front().result.runs.size() == 2);
}

TEST_CASE(
    "the run loop puts --vary's knobs back on every way out: done, interrupted, a failed save",
    "[run_loop]") {
    LoopBench b;
    // A knob as KnobGuard sees one: a file, its original value, the value
    // set; below the stand-in root a test may name (as the --vary tests do).
    ::setenv(kTestKnobRootVariable, b.dir.path().c_str(), 1);
    const std::shared_ptr<void> unset(nullptr, [](void*) { ::unsetenv(kTestKnobRootVariable); });
    const fs::path file = b.dir / "knob";
    std::ofstream(file) << "0\n";
    const std::vector<Knob> knobs{Knob{"knob", file, {"1", "2"}, "0"}};
    std::string left;  // the knob's value as the loop left it
    const auto run_with_knob = [&](const std::function<void(FakeBackend&)>& set) {
        RunPlan plan = make_run_plan(b.config);
        auto backend = std::make_unique<FakeBackend>(plan, b.log);
        if (set) set(*backend);
        std::optional<KnobGuard> guard;
        guard.emplace(knobs, b.config.workload.workdir);
        guard->set({1});
        REQUIRE(test::slurp(file) == "2\n");
        LabelFiles files = run_label_files(b.config, "2026-12-03T00:00:00Z", {}, b.progress);
        try {
            run_rounds(b.config, plan, std::move(backend), guard, files, b.progress);
        } catch (const Interrupted&) {
        }
        CHECK(b.log.let_go);
        left = test::slurp(file);
        // Put back by the loop when it ended by itself (before the files are
        // saved complete), else by the guard's end, its owner's way out.
        guard.reset();
        return test::slurp(file);
    };
    SECTION("done") {
        CHECK(run_with_knob(nullptr) == "0\n");
        CHECK(left == "0\n");
    }
    SECTION("interrupted") {
        CHECK(run_with_knob([](FakeBackend& f) { f.interrupt_in_round = 2; }) == "0\n");
    }
    SECTION("a failed save") {
        std::ofstream(b.dir / "not-a-folder") << "x";
        b.config.results_dir = b.dir / "not-a-folder" / "results";
        CHECK(run_with_knob(nullptr) == "0\n");
    }
    CHECK_FALSE(fs::exists(knob_note_path(b.config.workload.workdir)));
}
