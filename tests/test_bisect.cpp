// `contest bisect` without building or booting: a real git repository of
// small commits and real `git bisect`, each batch of rounds taken by the run
// loop (run_rounds) through a fake backend whose figures depend on the
// label's commit: a known effect from one commit on, noise of a given
// spread. What is checked: the first bad commit is found, every step's
// evidence recorded and the user's tree left as it was; a resumed
// bisection takes no step twice; an effect below the noise is "cannot
// tell" with what the rounds could see; the state is read as untrusted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/bisect/bisection.h"
#include "contest/bisect/git_bisect.h"
#include "contest/result/result_file.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "fake_bisect_place.h"
#include "fake_kernel_runs.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::bisect;
namespace fs = std::filesystem;

namespace {

std::string sh(const fs::path& dir, const std::string& cmd) {
    return test::shell_output("cd '" + dir.string() + "' && " + cmd);
}

// A tree of `commits` commits after its base, each changing one file.
struct Tree {
    test::ScratchDir scratch{"bisect"};
    fs::path tree = scratch / "linux";
    std::vector<std::string> commits;  // [0] the base (good), then one per change

    explicit Tree(int changes) {
        fs::create_directories(tree);
        sh(tree,
           "git init -q -b main && echo 0 > file && git add file && "
           "git -c user.name=t -c user.email=t@t commit -qm base");
        commits.push_back(sh(tree, "git rev-parse HEAD"));
        for (int i = 1; i <= changes; ++i) {
            sh(tree, "echo " + std::to_string(i) +
                         " > file && git -c user.name=Ann -c user.email=ann@example.org "
                         "commit -qam 'change " +
                         std::to_string(i) + "'");
            commits.push_back(sh(tree, "git rev-parse HEAD"));
        }
    }
    // The user's tree as a user sees it: status, HEAD, branches, bisect state.
    std::string state() const {
        return sh(tree,
                  "git status --porcelain; git rev-parse HEAD; git branch -a; "
                  "ls .git | grep -ci bisect");
    }
    int index_of(const std::string& commit) const {
        for (std::size_t i = 0; i < commits.size(); ++i)
            if (commits[i] == commit) return static_cast<int>(i);
        return -1;
    }
};

// Each run's Time: 10 s, plus `effect` from commit first_bad on, plus noise;
// with a second culprit, half the effect from first_bad on and the other
// half from second_bad on.
class CommitBackend : public RoundBackend {
  public:
    CommitBackend(const RunPlan& plan, const Tree& tree, int first_bad, int second_bad,
                  double effect, double noise, std::mt19937_64& rng,
                  std::map<std::string, int>& turns)
        : plan_(plan),
          tree_(tree),
          first_bad_(first_bad),
          second_bad_(second_bad),
          effect_(effect),
          noise_(0, noise),
          rng_(rng),
          turns_(turns) {}
    std::optional<latency::LatencyPlan> plan_probes() override { return std::nullopt; }
    void describe(ResultFile&, const LabelRun&) const override {}
    void begin(RunRecorder&) override {}
    void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                   RunRecorder& recorder) override {
        // TREE@COMMIT, then the bisection's options (%CONFIG_X=V...) when it has any.
        const std::string image = label.kernel->image;
        const std::string ref = image.substr(image.rfind('@') + 1);
        const int commit = tree_.index_of(ref.substr(0, ref.find('%')));
        REQUIRE(commit >= 0);
        ++turns_[label.label];
        std::vector<RunRecord> runs;
        for (std::size_t k : loads) {
            RunRecord r;
            r.load = std::string(plan_.load_names[k]);
            r.index = r.round = static_cast<int>(index);
            const double part = second_bad_ ? effect_ / 2 : effect_;
            r.wall_s = 10 + (commit >= first_bad_ ? part : 0) +
                       (second_bad_ && commit >= second_bad_ ? part : 0) + noise_(rng_);
            r.cpu_pct = 90;
            runs.push_back(r);
        }
        recorder.record(label, runs, 0.01);
    }

  private:
    const RunPlan& plan_;
    const Tree& tree_;
    int first_bad_, second_bad_;
    double effect_;
    std::normal_distribution<double> noise_;
    std::mt19937_64& rng_;
    std::map<std::string, int>& turns_;
};

struct FakeBisection {
    Tree t;
    int first_bad, second_bad = 0;
    double effect, noise;
    std::mt19937_64 rng{11};
    std::map<std::string, int> turns;  // turns taken, by label
    int batches = 0;
    Progress progress = Progress::for_stderr(true);

    FakeBisection(int changes, int first_bad_in, double effect_in, double noise_in)
        : t(changes), first_bad(first_bad_in), effect(effect_in), noise(noise_in) {}

    BisectOptions options() const {
        BisectOptions o;
        o.tree = t.tree;
        o.good = t.commits.front();
        o.bad = t.commits.back();
        o.measure = parse_bisect_measure("time:cpu_load", {"no_load", "cpu_load"});
        o.results = t.scratch / "results";
        o.workdir = t.scratch / "work";
        return o;
    }

    // A batch as contest bisect's is, but through the fake backend: a
    // --kernel run's config and plan, the loop itself.
    test::TakeRounds take() {
        return [this](const std::vector<KernelSpec>& kernels, const fs::path& folder,
                      unsigned rounds, const StopRule& stop) {
            ++batches;
            RunConfig config = test::fake_kernel_run_config(kernels, t.scratch / "work", folder,
                                                            rounds, 5 + batches, stop);
            RunPlan plan = make_run_plan(config);
            auto backend = std::make_unique<CommitBackend>(plan, t, first_bad, second_bad, effect,
                                                           noise, rng, turns);
            std::optional<KnobGuard> no_knobs;
            const LabelFiles files = run_label_files(
                config, "2026-12-04T00:00:0" + std::to_string(batches % 10) + "Z", {}, progress);
            RunOutcome out =
                run_rounds(config, plan, std::move(backend), no_knobs, files, progress);
            return label_results(out.labels);
        };
    }

    // take(), but `thrown` is thrown instead of the `batch`th batch (an
    // interrupt, a part the machine refused).
    template <typename Thrown>
    test::TakeRounds take_failing_at(int batch, Thrown thrown) {
        return [this, batch, thrown, whole = take()](const std::vector<KernelSpec>& k,
                                                     const fs::path& f, unsigned r,
                                                     const StopRule& stop) {
            if (batches == batch - 1) throw thrown;
            return whole(k, f, r, stop);
        };
    }
};

}  // namespace

TEST_CASE(
    "a bisection finds the commit that added a delay, says how sure, and leaves the "
    "user's tree as it was",
    "[bisect]") {
    FakeBisection b(8, 5, 1.0, 0.1);
    const std::string before = b.t.state();
    const BisectState s = test::run_bisection(b.options(), b.take(), b.progress);
    INFO(bisection_text(s));
    CHECK(s.ends_state == EndsState::differ);
    REQUIRE(s.first_bad == b.t.commits[5]);
    CHECK(s.first_bad_subject == "change 5");
    CHECK(s.first_bad_author == "Ann <ann@example.org>");
    CHECK(s.sureness > 0.9);
    CHECK(s.finished);
    // 8 commits: three steps, each decided, each with its evidence.
    REQUIRE(s.steps.size() == 3);
    for (const auto& step : s.steps) {
        CHECK(step.state != StepClass::unknown);
        CHECK(step.rounds >= 2);
        // At least the step's error rate (1%): no round weighs more than
        // half the bound, so two clear rounds say 99%, not more.
        CHECK(step.sureness >= 0.99 - 1e-9);
        CHECK(fs::exists(b.t.scratch / "results" / step.folder / "tested"));
        const bool bad = b.t.index_of(step.commit) >= 5;
        CHECK(step.word == (bad ? "bad" : "good"));
    }
    // Both ends measured in every batch, in the same rounds as the tested commit.
    CHECK(b.turns["good"] == b.turns["bad"]);
    const std::string log = test::slurp(b.t.scratch / "results" / "bisect.log");
    CHECK_THAT(log, Catch::Contains("# first bad commit: [" + b.t.commits[5] + "]"));
    CHECK(b.t.state() == before);
    const std::string text = bisection_text(s);
    CHECK_THAT(text, Catch::Contains("first bad commit: " + b.t.commits[5] + " change 5"));
    // The shift with its unit: Time is in seconds.
    CHECK_THAT(s.ends_why, Catch::Contains(" s over 3 rounds"));

    SECTION("a rerun of the finished bisection takes no round") {
        const int batches = b.batches;
        const BisectState again = test::run_bisection(b.options(), b.take(), b.progress);
        CHECK(b.batches == batches);
        CHECK(again.first_bad == s.first_bad);
    }
}

TEST_CASE(
    "a bisection says the batch it needs next, and reads the batch's files back from its folder, "
    "whatever wrote them",
    "[bisect]") {
    FakeBisection b(8, 5, 1.0, 0.1);
    Bisection bisection(b.options(), b.progress);
    // The ends first: their kernels, their folder, the bound, a rule that
    // has nothing to decide on yet.
    std::optional<BatchNeed> need = bisection.next();
    REQUIRE(need);
    REQUIRE(need->kernels.size() == 2);
    CHECK(need->kernels[0].label == "good");
    CHECK(need->kernels[1].label == "bad");
    CHECK(need->kernels[0].image == b.t.tree.string() + "@" + b.t.commits.front());
    CHECK(need->folder == b.t.scratch / "results" / "ends");
    CHECK(need->rounds == BisectRule{}.ends_max_rounds);
    CHECK_FALSE(need->part);
    REQUIRE(need->stop);
    CHECK(need->stop(0, {}).empty());
    b.take()(need->kernels, need->folder, need->rounds, need->stop);
    CHECK(b.batches == 1);
    bisection.ran();
    CHECK(bisection.state().ends_state == EndsState::differ);
    // Then git's first commit, with both ends beside it.
    need = bisection.next();
    REQUIRE(need);
    REQUIRE(need->kernels.size() == 3);
    CHECK(need->kernels[2].label == "tested");
    CHECK(need->folder.filename().string().starts_with("step-1-"));
    CHECK(need->rounds == BisectRule{}.step_max_rounds);
    // A place that wrote nothing into the folder: no round to judge, the
    // step skipped, saying so; the next step asked for.
    bisection.ran();
    REQUIRE(bisection.state().steps.size() == 1);
    CHECK(bisection.state().steps[0].word == "skip");
    CHECK(bisection.state().steps[0].why == "no round with a figure of each label");
    need = bisection.next();
    REQUIRE(need);
    CHECK(need->folder.filename().string().starts_with("step-2-"));
    // A kernel that does not build: the tested commit skipped as git bisect
    // run skips it, the failure's words kept.
    bisection.ran(
        std::make_exception_ptr(StepFailed("--kernel tested=...: make failed", "build", "")));
    REQUIRE(bisection.state().steps.size() == 2);
    CHECK(bisection.state().steps[1].word == "skip");
    CHECK_THAT(bisection.state().steps[1].why, Catch::Contains("does not build: --kernel tested="));
    CHECK_FALSE(bisection.state().finished);
}

TEST_CASE(
    "adjacent ends: the answer is as sure as the ends' test, whose real level with a look after "
    "every round is above its nominal p",
    "[bisect]") {
    // One look is the nominal level; a look after each of rounds 3 to 10 more.
    BisectRule one_look;
    one_look.ends_max_rounds = one_look.ends_min_rounds;
    CHECK(ends_false_differ_rate(one_look) == Approx(one_look.ends_level).margin(0.002));
    const double ends_error = ends_false_differ_rate(BisectRule{});
    CHECK(ends_error > 2 * BisectRule{}.ends_level);
    CHECK(ends_error < 0.1);

    FakeBisection b(1, 1, 1.0, 0.1);
    const BisectState s = test::run_bisection(b.options(), b.take(), b.progress);
    const std::string text = bisection_text(s);
    INFO(text);
    REQUIRE(s.first_bad == b.t.commits[1]);
    CHECK(s.steps.empty());
    // Not "> 99.99% sure": no step, so as sure as the ends' test, and never more.
    CHECK_THAT(text, !Catch::Contains("> 99.99%"));
    char says[64];
    std::snprintf(says, sizeof says, "%.1f%% of the time", 100 * ends_error);
    CHECK_THAT(text, Catch::Contains(says));
    std::snprintf(says, sizeof says, "%.1f%% sure", 100 * (1 - ends_error));
    CHECK_THAT(text, Catch::Contains(says));
}

TEST_CASE(
    "two culprits, each half the change: the commits between them are between the ends, "
    "skipped, and the answer is the range the change spreads over",
    "[bisect]") {
    FakeBisection b(8, 3, 1.0, 0.05);
    b.second_bad = 6;  // commits 3, 4 and 5 lie halfway
    const BisectState s = test::run_bisection(b.options(), b.take(), b.progress);
    const std::string text = bisection_text(s);
    INFO(text);
    CHECK(s.ends_state == EndsState::differ);
    int between = 0;
    for (const auto& step : s.steps) {
        const int at = b.t.index_of(step.commit);
        INFO("commit " << at);
        if (at >= 3 && at < 6) {
            CHECK(step.state == StepClass::between);
            CHECK(step.word == "skip");
            CHECK(step.position == Approx(0.5).margin(0.2));
            ++between;
        } else {
            CHECK(step.state == (at >= 6 ? StepClass::like_bad : StepClass::like_good));
        }
    }
    CHECK(between > 0);
    // No single first bad commit: the range, from the first culprit to the second.
    CHECK(s.first_bad.empty());
    CHECK(std::find(s.could_be.begin(), s.could_be.end(), b.t.commits[6]) != s.could_be.end());
    CHECK(std::find(s.could_be.begin(), s.could_be.end(), b.t.commits[2]) == s.could_be.end());
    CHECK_THAT(text, Catch::Contains("the change spreads over more than one commit"));
    CHECK_THAT(text, Catch::Contains("between the ends"));
}

TEST_CASE("a bisection cut after its second step resumes from its state and git's log",
          "[bisect]") {
    FakeBisection b(8, 3, 1.0, 0.1);
    // The first run stops (as an interrupt would) when its third batch starts.
    const test::TakeRounds whole = b.take();
    const test::TakeRounds cut = b.take_failing_at(4, Interrupted());
    const auto wall = [](const auto& f) {
        const auto t = std::chrono::steady_clock::now();
        f();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    const double first_s = wall(
        [&] { CHECK_THROWS_AS(test::run_bisection(b.options(), cut, b.progress), Interrupted); });
    const BisectState half = read_bisect_state(b.t.scratch / "results");
    CHECK_FALSE(half.finished);
    REQUIRE(half.steps.size() == 2);
    const int batches = b.batches;
    BisectState s;
    const double second_s = wall([&] { s = test::run_bisection(b.options(), whole, b.progress); });
    INFO(bisection_text(s));
    CHECK(s.first_bad == b.t.commits[3]);
    REQUIRE(s.steps.size() == 3);
    CHECK(s.steps[0].commit == half.steps[0].commit);
    CHECK(b.batches == batches + 1);  // the third step alone
    // The whole bisection's time holds the first contest's (its two steps
    // and the ends, most of it) besides the second's.
    CHECK(half.seconds > first_s / 2);
    CHECK(s.seconds > second_s + first_s / 2);
    CHECK(s.seconds <= first_s + second_s);
}

TEST_CASE(
    "a bisection's answer and its mail escape the tree's text, and the mail names the machine "
    "and the command",
    "[bisect][e2e]") {
    FakeBisection b(4, 2, 1.0, 0.1);
    BisectOptions o = b.options();
    o.run_words = {"-w", "command", "--workload-cmd", "sh -c 'exit 0'", "no_load", "cpu_load"};
    test::run_bisection(o, b.take(), b.progress);
    const fs::path state = b.t.scratch / "results";
    BisectState s = read_bisect_state(state);
    REQUIRE(s.finished);
    // A tree whose commits carry a terminal's escapes and a line break.
    const std::string evil = "fix \x1b]0;owned\x07 it\nfirst bad commit: forged";
    s.first_bad_subject = evil;
    s.first_bad_author = "Eve \x1b[2J <eve@example.org>";
    for (auto& step : s.steps) step.subject = evil;
    write_bisect_state(state, s);
    const auto no_escapes = [](const std::string& text) {
        INFO(text);
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find('\x07') == std::string::npos);
        CHECK(text.find("\nfirst bad commit: forged") == std::string::npos);
    };
    no_escapes(bisection_text(s));
    const auto post =
        test::run_contest_binary({"post", (b.t.scratch / "results").string()}, b.t.scratch.path());
    INFO(post.out << post.err);
    REQUIRE(post.exit_code == 0);
    no_escapes(post.out);
    // One header, the Subject, then the body.
    CHECK(post.out.rfind("Subject: ", 0) == 0);
    CHECK(post.out.find("\n\n") == post.out.find('\n'));
    // The facts the ends' files recorded (this fake run's: no machine's),
    // and the command that ran it, its words quoted for a shell.
    CHECK_THAT(post.out, Catch::Contains("The machine and the ends"));
    CHECK_THAT(post.out, Catch::Contains("Workload:  command"));
    CHECK_THAT(post.out, Catch::Contains("How it was run:"));
    CHECK_THAT(post.out, Catch::Contains("--measure=time:cpu_load"));
    CHECK_THAT(post.out, Catch::Contains("--workload-cmd"));
    CHECK_THAT(post.out, Catch::Contains("\"sh -c 'exit 0'\""));
}

TEST_CASE(
    "two bisections of one tree, one taken whole while the other is under way, each marks its "
    "own git bisect, a second contest on the same bisection is refused while the first takes it",
    "[bisect]") {
    FakeBisection b(8, 5, 1.0, 0.1);
    BisectOptions other = b.options();
    other.results = b.t.scratch / "results-2";
    const test::TakeRounds whole = b.take();
    std::optional<BisectState> inner;
    std::string busy;
    const test::TakeRounds first = [&](const std::vector<KernelSpec>& k, const fs::path& f,
                                       unsigned r, const StopRule& stop) {
        // During the first's first step: the same tree bisected elsewhere,
        // and the same bisection asked again.
        if (k.size() == 3 && !inner) {
            inner = test::run_bisection(other, whole, b.progress);
            try {
                test::run_bisection(b.options(), whole, b.progress);
            } catch (const BisectionBusy& e) {
                busy = e.what();
            }
        }
        return whole(k, f, r, stop);
    };
    const BisectState s = test::run_bisection(b.options(), first, b.progress);
    INFO(bisection_text(s));
    REQUIRE(inner);
    CHECK(inner->first_bad == b.t.commits[5]);
    CHECK(s.first_bad == b.t.commits[5]);
    CHECK(s.steps.size() == 3);
    CHECK_THAT(busy, Catch::Contains("is being taken by another contest (pid " +
                                     std::to_string(::getpid()) + ")"));
}

TEST_CASE(
    "a bisection cut between saving a step and keeping git's log takes no commit twice: git is "
    "told the marks the state holds",
    "[bisect]") {
    FakeBisection b(8, 3, 1.0, 0.1);
    const test::TakeRounds whole = b.take();
    const test::TakeRounds cut = b.take_failing_at(4, Interrupted());
    CHECK_THROWS_AS(test::run_bisection(b.options(), cut, b.progress), Interrupted);
    REQUIRE(read_bisect_state(b.t.scratch / "results").steps.size() == 2);
    // git's log as it was before its second mark: the crash came after the
    // state was saved, before the log was kept.
    const fs::path log = b.t.scratch / "results/bisect.log";
    std::vector<std::string> lines = split_lines(test::slurp(log));
    while (!lines.empty() && !lines.back().starts_with("git bisect good") &&
           !lines.back().starts_with("git bisect bad"))
        lines.pop_back();
    REQUIRE(lines.size() >= 2);
    lines.resize(lines.size() - 2);  // the mark and its comment
    test::put_file(log, join(lines, "\n") + "\n");
    const int batches = b.batches;
    const BisectState s = test::run_bisection(b.options(), whole, b.progress);
    INFO(bisection_text(s));
    CHECK(s.first_bad == b.t.commits[3]);
    std::set<std::string> commits;
    for (const auto& step : s.steps) CHECK(commits.insert(step.commit).second);
    CHECK(s.steps.size() == 3);
    CHECK(b.batches == batches + 1);
    // The log kept again holds every mark.
    for (const auto& step : s.steps)
        CHECK_THAT(test::slurp(log),
                   Catch::Contains("git bisect " + step.word + " " + step.commit));
}

TEST_CASE(
    "a bisection resumed with other run words or another rule is refused, naming what differs, "
    "one that failed says so in its state until it is taken on",
    "[bisect]") {
    FakeBisection b(8, 5, 1.0, 0.1);
    BisectOptions started = b.options();
    started.run_words = {"-w", "command", "cpu_load"};
    const test::TakeRounds whole = b.take();
    // The second step's batch fails (a part the machine refused, say).
    const test::TakeRounds failing =
        b.take_failing_at(3, EnvironmentError("the machine refused the part's kexec"));
    CHECK_THROWS_AS(test::run_bisection(started, failing, b.progress), EnvironmentError);
    const BisectState failed = read_bisect_state(b.t.scratch / "results");
    CHECK_FALSE(failed.finished);
    CHECK(failed.failure == "the machine refused the part's kexec");
    const std::string text = bisection_text(failed);
    CHECK_THAT(text, Catch::Contains("ended without an answer after 1 step: the machine refused "
                                     "the part's kexec"));
    CHECK_THAT(text, !Catch::Contains("under way"));
    const auto refusal = [&](const BisectOptions& o) {
        try {
            test::run_bisection(o, whole, b.progress);
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("taken");
    };
    BisectOptions other_words = started;
    other_words.run_words = {"-w", "command", "--warmup=1", "cpu_load"};
    const std::string words = refusal(other_words);
    CHECK_THAT(words, Catch::Contains("other words after -- (`-w command cpu_load` there, `-w "
                                      "command --warmup=1 cpu_load` now)"));
    BisectOptions other_rate = started;
    other_rate.rule.error_rate = 0.05;
    CHECK_THAT(refusal(other_rate), Catch::Contains("other --error-rate (0.01 there, 0.05 now)"));
    BisectOptions other_bound = started;
    other_bound.rule.step_max_rounds = 12;
    CHECK_THAT(refusal(other_bound), Catch::Contains("other --step-max-rounds (8 there, 12 now)"));
    for (const auto& why : {words, refusal(other_rate)}) CHECK(why.find('\n') == std::string::npos);
    // Nothing taken by the refusals; the same question takes it on, and the
    // failure is gone from its state.
    CHECK(read_bisect_state(b.t.scratch / "results").failure == failed.failure);
    const BisectState s = test::run_bisection(started, whole, b.progress);
    CHECK(s.first_bad == b.t.commits[5]);
    CHECK(s.failure.empty());
    CHECK(read_bisect_state(b.t.scratch / "results").failure.empty());
}

TEST_CASE(
    "a bisection with the ends' config options builds every batch's kernels with them, a state of "
    "other options is another bisection's",
    "[bisect][label-options]") {
    FakeBisection b(4, 2, 1.0, 0.1);
    BisectOptions o = b.options();
    o.options = {"CONFIG_HZ_1000=y", "# CONFIG_HZ_250 is not set"};
    std::vector<std::string> specs;
    const test::TakeRounds whole = b.take();
    const test::TakeRounds seen = [&](const std::vector<KernelSpec>& k, const fs::path& f,
                                      unsigned r, const StopRule& stop) {
        for (const auto& kernel : k) specs.push_back(kernel.image);
        return whole(k, f, r, stop);
    };
    const BisectState s = test::run_bisection(o, seen, b.progress);
    CHECK(s.first_bad == b.t.commits[2]);
    CHECK(s.options == o.options);
    REQUIRE(specs.size() >= 5);  // the ends, then good, bad and tested a step
    for (const auto& spec : specs)
        CHECK(spec.ends_with("%CONFIG_HZ_1000=y%# CONFIG_HZ_250 is not set"));
    CHECK(specs[0] == b.t.tree.string() + "@" + b.t.commits.front() +
                          "%CONFIG_HZ_1000=y%# CONFIG_HZ_250 is not set");
    // The command that asked it (contest post's) gives the ends with them.
    const std::vector<std::string> words = bisection_command(s);
    CHECK(std::find(words.begin(), words.end(), "--good=" + specs[0]) != words.end());
    // The same commits with other options: another question, refused.
    BisectOptions other = o;
    other.options = {"CONFIG_HZ_100=y"};
    CHECK_THROWS_WITH(test::run_bisection(other, seen, b.progress),
                      Catch::Contains("holds another bisection's state"));
    // A state's option line that is none (a file's name) is refused, never read.
    BisectState bad = s;
    bad.options = {"/etc/shadow"};
    CHECK_THROWS_WITH(commit_spec(bad, bad.good), Catch::Contains("is no option line"));
}

TEST_CASE("ends within the noise are not bisected: cannot tell, with what the rounds could see",
          "[bisect]") {
    FakeBisection b(8, 5, 0.01, 0.5);
    const BisectState s = test::run_bisection(b.options(), b.take(), b.progress);
    CHECK(s.ends_state == EndsState::same);
    CHECK(s.first_bad.empty());
    CHECK(s.steps.empty());
    CHECK(s.ends_rounds == BisectRule{}.ends_max_rounds);
    CHECK(s.could_see > 0.1);
    CHECK_THAT(s.ends_why, Catch::Contains("could see"));
    CHECK_THAT(bisection_text(s), Catch::Contains("cannot be told apart"));
}

TEST_CASE("a bisection's state is read as untrusted: each wrong field one line naming it",
          "[bisect]") {
    BisectState s;
    s.tree = "/t";
    s.good = "a";
    s.bad = "b";
    s.steps.push_back({});
    const std::string text = bisect_state_text(s);
    CHECK(bisect_state_text(bisect_state_from_text(text, "x")) == text);
    for (const auto& [bad, field] : std::vector<std::pair<std::string, std::string>>{
             {"[]", "no JSON object"},
             {"{\"version\": 2}", "version"},
             {R"({"version": 1, "tree": 3})", "tree"},
         }) {
        INFO(bad);
        try {
            bisect_state_from_text(bad, "bisect.json");
            FAIL("accepted");
        } catch (const UsageError& e) {
            CHECK_THAT(std::string(e.what()), Catch::Contains(field));
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
        }
    }
    // A folder of a contest before the state moved into the journal: one line.
    test::ScratchDir older("bisect-older");
    std::ofstream(older / "bisect.json") << text;
    CHECK_THROWS_WITH(has_bisect_state(older.path()),
                      Catch::Contains("holds a bisection an earlier contest started (its "
                                      "bisect.json; the state is now its journal's): start it "
                                      "again in a new folder"));
    // The state is the journal's section; the rest of the journal is kept
    // when it is written, and another run's journal holds none.
    test::ScratchDir folder("bisect-section");
    test::put_file(folder / kRunJournalName, "{\"schema\": " + std::to_string(kRunJournalSchema) +
                                                 ", \"started_at\": \"1\"}");
    CHECK_FALSE(has_bisect_state(folder.path()));
    write_bisect_state(folder.path(), s);
    CHECK(has_bisect_state(folder.path()));
    CHECK(read_bisect_state(folder.path()).tree == "/t");
    const auto journal = nlohmann::json::parse(test::slurp(folder / kRunJournalName));
    CHECK(journal["started_at"] == "1");
    CHECK(journal["bisection"]["tree"] == "/t");
    // The fuzz target's seeds of a bisection are journals this reader takes.
    int seeds = 0;
    for (const auto& e :
         fs::directory_iterator(fs::path(CONTEST_SOURCE_DIR) / "tests/fuzz/seeds/journal")) {
        if (!e.path().filename().string().starts_with("bisection-")) continue;
        INFO(e.path());
        const BisectState seed = JournalFile::read(e.path(), "seed").get(kBisectionStateSection);
        CHECK(seed.measure == "loads:process_load");
        ++seeds;
    }
    CHECK(seeds == 4);
    std::string wrong_class = text;
    wrong_class.replace(wrong_class.find("\"cannot tell\""), 13, "\"maybe\"");
    CHECK_THROWS_WITH(bisect_state_from_text(wrong_class, "bisect.json"),
                      Catch::Contains("steps[0]: class"));
    // Each field on the record codec (sys/json_record.h): one it does not
    // know refused, each bound kept, a figure not known (null) read as NaN.
    const nlohmann::json j = nlohmann::json::parse(text);
    auto refused = [&](const std::string& pointer, const nlohmann::json& value) -> std::string {
        nlohmann::json changed = j;
        changed[nlohmann::json::json_pointer(pointer)] = value;
        try {
            bisect_state_from_text(changed.dump(), "bisect.json");
        } catch (const UsageError& e) {
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
            return e.what();
        }
        return "read";
    };
    CHECK(refused("/planted", 1) == "bisect.json: planted: a field this contest does not know");
    CHECK(refused("/steps/0/planted", 1) ==
          "bisect.json: steps[0]: planted: a field this contest does not know");
    CHECK(refused("/ends_rounds", 1000001) ==
          "bisect.json: ends_rounds: not a count from 0 to 1000000");
    CHECK(refused("/ends_p", 1.5).starts_with("bisect.json: ends_p: out of its range"));
    CHECK(refused("/steps/0/sureness", "1") == "bisect.json: steps[0]: sureness: not a number");
    CHECK(refused("/run_words", nlohmann::json::array({1})) ==
          "bisect.json: run_words[0]: not a string");
    CHECK(refused("/steps/0/class", "maybe") ==
          "bisect.json: steps[0]: class: 'maybe' is no step class");
    CHECK(refused("/ends_state", "far") ==
          "bisect.json: ends_state: 'far' is no state of the ends");
    CHECK(refused("/shift", nullptr) == "read");
    nlohmann::json unknown_shift = j;
    unknown_shift["shift"] = nullptr;
    CHECK(std::isnan(bisect_state_from_text(unknown_shift.dump(), "x").shift));
    // A state of before a field was kept (its fields added later absent):
    // read, each with the record's own default, and written back whole.
    nlohmann::json earlier = j;
    for (const char* added :
         {"options", "ends_max_rounds", "run_words", "batch_started", "started", "failure"})
        earlier.erase(added);
    for (const char* added : {"over_halfway", "build_s", "cache_hit", "boots_s", "guests_s"})
        earlier["steps"][0].erase(added);
    const BisectState read_earlier = bisect_state_from_text(earlier.dump(), "x");
    CHECK(std::isnan(read_earlier.steps.at(0).over_halfway));
    CHECK(read_earlier.steps.at(0).build_s == 0);
    CHECK(read_earlier.ends_max_rounds == 0);
    CHECK(bisect_state_text(read_earlier) == text);
}

TEST_CASE(
    "a bisection's --measure names a measure and one of the run's loads, or is one line saying why",
    "[bisect]") {
    const std::vector<std::string> loads{"no_load", "process_load"};
    CHECK(parse_bisect_measure("loads:process_load", loads).what == "loads");
    CHECK(parse_bisect_measure("latency_cyclic_p99_us:process_load", loads).load == "process_load");
    CHECK_THROWS_WITH(parse_bisect_measure("time", loads), Catch::Contains("WHAT:LOAD"));
    CHECK_THROWS_WITH(parse_bisect_measure("speed:process_load", loads),
                      Catch::Contains("no measure"));
    CHECK_THROWS_WITH(parse_bisect_measure("time:io_load", loads),
                      Catch::Contains("does not take the load 'io_load'"));
    CHECK_THROWS_WITH(parse_bisect_measure("loads:no_load", loads), Catch::Contains("no work"));
}

TEST_CASE(
    "contest bisect refuses what it cannot bisect in one line, exit 2, before anything is "
    "built",
    "[bisect][e2e]") {
    Tree t(3);
    const std::string tree = t.tree.string();
    const fs::path results = t.scratch / "results";
    const auto run = [&](std::vector<std::string> words) {
        words.insert(words.begin(), "bisect");
        return test::run_contest_binary(words, t.scratch.path());
    };
    const std::string good = "--good=" + tree + "@" + t.commits[0],
                      bad = "--bad=" + tree + "@" + t.commits[3];
    const std::string res = "--results=" + results.string();
    const std::string before = t.state();
    const fs::path file = t.scratch / "a-file";
    test::put_file(file, "not a folder\n");
    for (const auto& [words, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             // A file where the results folder should be (or above it).
             {{good, bad, "--results=" + file.string()},
              file.string() + " is a file: give a folder"},
             {{good, bad, "--results=" + (file / "bisect").string()},
              file.string() + " is a file: give a folder"},
             {{bad, res}, "give --good TREE@REF"},
             {{"--good=" + tree, bad, res}, "expected TREE@REF"},
             {{good, "--bad=" + tree + "@" + t.commits[0], res}, "one commit"},
             {{"--good=" + tree + "@" + t.commits[3], "--bad=" + tree + "@" + t.commits[0], res},
              "is not an ancestor of --bad"},
             {{good, bad, res, "--", "--runs", "5", "no_load"}, "--runs is the bisection's"},
             {{good, bad, res, "--", "-n5", "no_load"}, "--runs is the bisection's"},
             {{good, bad, res, "--", "--resul=x", "no_load"}, "--results is the bisection's"},
             {{good, bad, res, "--", "--boot", "a=x", "no_load"}, "across reboots"},
             {{good, bad, res, "--", "--runs-per-boot", "3", "no_load"},
              "--runs-per-boot: a step's test takes one run a kernel and round"},
             {{good, bad, res, "--measure", "loads:io_load", "--", "-w", "command",
               "--workload-cmd", "true", "no_load", "cpu_load"},
              "does not take the load 'io_load'"},
             {{good, bad, res, "--error-rate", "0.7"}, "--error-rate"},
             {{good + "%CONFIG_HZ_1000=y", bad, res}, "--good and --bad give different config"},
             {{good + "%HZ_1000=y", bad + "%HZ_1000=y", res}, "is not a CONFIG_ option name"},
             // `default` is the loads it names, not a load of its own.
             {{good, bad, res, "--measure", "time:default", "--", "-w", "command", "--workload-cmd",
               "true", "default"},
              "does not take the load 'default'"},
         }) {
        std::string line;
        for (const auto& w : words) line += w + " ";
        INFO(line);
        const auto o = run(words);
        CHECK(o.exit_code == 2);
        CHECK_THAT(o.err, Catch::Contains(says));
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    }
    // The user's tree as it was, and nothing made where the results go.
    CHECK(t.state() == before);
    CHECK_FALSE(fs::exists(results));
}

TEST_CASE(
    "bisect: a clone cut by a SIGKILL (a repo.git without HEAD) is made again at the next start, "
    "not refused forever",
    "[bisect]") {
    test::StandIn s;
    const fs::path folder = s.scratch / "bisect", scratch = s.scratch / "git-scratch";
    fs::create_directories(scratch);
    // What `git clone --bare` leaves when killed before it wrote HEAD.
    fs::create_directories(folder / "repo.git" / "objects" / "pack");
    test::put_file(folder / "repo.git" / "config", "[core]\n");
    GitBisect git(folder, s.tree, scratch);
    CHECK(fs::exists(folder / "repo.git" / "HEAD"));
    const BisectNext next = git.start(s.next, s.base);
    CHECK(next.first_bad == s.next);
    CHECK_FALSE(fs::exists(folder / "repo.git.partial"));
}
