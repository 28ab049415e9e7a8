#pragma once
// `contest track`'s stand-in bench, shared by its tests (test_track.cpp)
// and the lab's soak (test_lab_soak.cpp): the kbuild stand-in's real git
// tree with commits on top, a tag every 4, one commit that makes the
// workload slower (a step) and, unless told otherwise, one tagged commit
// that does not build. Each measurement goes through the measuring seam
// (TrackBench) whose runs are the run loop's (run_rounds) through a fake
// backend deriving each run's figure from its kernel's commit, and the
// bisection is the stepper's (bisection.h) driven at a fake place
// (fake_bisect_place.h) with real `git bisect`.
#include <signal.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/bisect/bisect_state.h"
#include "contest/bisect/bisection.h"
#include "contest/run/record/label_run.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/track/track_bench.h"
#include "contest/track/track_state.h"
#include "fake_bisect_place.h"
#include "fake_kernel_runs.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

namespace contest::test {

// In a forked track: the turns its runs may still take before it is
// killed (SIGKILL, in the middle of a run); -1: never.
inline int turns_before_kill = -1;
// In a forked track: what its state said last (phase_of), and the file each
// kill writes it to before the signal.
inline std::string last_phase;
inline std::filesystem::path kills_log;

inline void killed_here(const std::string& how) {
    std::ofstream(kills_log, std::ios::app) << last_phase << " " << how << "\n";
    ::raise(SIGKILL);
}

// The step a state is at: a change's confirming or bisecting, else the
// status of the last point taken.
inline std::string phase_of(const track::TrackState& s) {
    using namespace contest::track;
    for (const auto& c : s.changes)
        if (c.status == ChangeStatus::confirming || c.status == ChangeStatus::bisecting ||
            c.status == ChangeStatus::found)
            return std::string(name_in(kChangeStatusNames, c.status));
    for (auto p = s.points.rbegin(); p != s.points.rend(); ++p)
        if (p->status != PointStatus::pending)
            return std::string(name_in(kPointStatusNames, p->status));
    return "listed";
}

// What the bench needs of a tree: where it is, its commits in order, which
// makes the workload slower, which do not build. A clone of a tracked tree
// (a host of the lab's) has the same commits at another path.
struct TreeFacts {
    std::filesystem::path tree;
    int step = 0;                       // the commit that makes the workload slower
    std::vector<std::string> commits;   // [0] the stand-in's base
    std::map<std::string, int> number;  // commit -> its index
    std::set<std::string> failing;

    std::string spec(const std::string& commit) const { return tree.string() + "@" + commit; }
    TreeFacts at(const std::filesystem::path& clone) const {
        TreeFacts facts = *this;
        facts.tree = clone;
        return facts;
    }
};

struct HoldsStandIn {
    StandIn stand_in;
};

// The stand-in tree (kbuild's tests'), then commits 2 to `last` on top of
// its two; tags t00, t04, ... on every 4th; from commit `step` on the
// workload is 10% slower (the commit adds a file `slow`, as a delay in a
// path a load feels); the commit `failing_at` (a tag's, t08 by default)
// adds `fail` (the stand-in's build fails there) and the next removes it;
// none when it is 0.
struct TrackedTree : HoldsStandIn, TreeFacts {
    static constexpr int kStep = 14, kFailing = 8, kCommits = 30;
    int failing_at;

    explicit TrackedTree(int step_at = kStep, int last = kCommits, int failing_commit = kFailing)
        : failing_at(failing_commit) {
        step = step_at;
        tree = stand_in.tree;
        // One shell for the commits and the tags (a process or two each
        // would be most of the test's time).
        std::string script = "set -e";
        for (int i = 2; i <= last; ++i) script += "; " + commit_script(i);
        for (int i = 0; i <= last - 2; i += 4)
            script += "; git tag " + tag_name(i) + " $(git rev-list --reverse main | sed -n " +
                      std::to_string(i + 1) + "p)";
        sh(tree, script);
        for (const auto& c : split_lines(sh(tree, "git rev-list --reverse main")))
            commits.push_back(c);
        REQUIRE(commits.size() == static_cast<std::size_t>(last) + 1);
        REQUIRE(commits[0] == stand_in.base);
        for (std::size_t i = 0; i < commits.size(); ++i) number[commits[i]] = static_cast<int>(i);
        if (failing_at > 0) failing.insert(commits[static_cast<std::size_t>(failing_at)]);
    }
    std::string commit_script(int i) const {
        std::string files = "echo " + std::to_string(i) + " > work && git add work";
        std::string subject = "work: step " + std::to_string(i);
        if (i == step) {
            files += " && echo 'udelay(200)' > slow && git add slow";
            subject = "pipe: let a slow reader catch up before each write";
        }
        if (failing_at > 0 && i == failing_at) files += " && echo 1 > fail && git add fail";
        if (failing_at > 0 && i == failing_at + 1) files += " && git rm -q fail";
        return files +
               " && git -c user.name='Dee Pipes' -c user.email=dee@example.org commit -qm '" +
               subject + "'";
    }
    static std::string tag_name(int i) {
        char name[16];
        std::snprintf(name, sizeof name, "t%02d", i);
        return name;
    }
    void add_commit(int i) {
        sh(tree, commit_script(i));
        commits.push_back(sh(tree, "git rev-parse HEAD"));
        number[commits.back()] = i;
    }
    void tag(int i) {
        sh(tree, "git tag " + tag_name(i) + " " + commits[static_cast<std::size_t>(i)]);
    }
};

// Each run's Time: 10 s under cpu_load (5 s under no_load), 1 s more from
// the step's commit on, and noise of 1%, all times the host's speed now
// (1 unless told); what the kernel label's image (TREE@COMMIT) names. Each
// new file records its kernel as a build of the tree would (release, tree,
// commit, key): what the database keys a kernel by.
class CommitFigures : public RoundBackend {
  public:
    CommitFigures(const RunPlan& plan, const TreeFacts& tree, std::mt19937_64& rng,
                  std::map<std::string, double>& point_offsets,
                  const std::function<double()>& speed, const std::string& hostname)
        : plan_(plan),
          tree_(tree),
          rng_(rng),
          point_offsets_(point_offsets),
          speed_(speed),
          hostname_(hostname) {}
    std::optional<latency::LatencyPlan> plan_probes() override { return std::nullopt; }
    void describe(ResultFile& file, const LabelRun& label) const override {
        const std::string c = commit_of(label);
        file.config["kernel"] = {
            {"release", "6.1.0-standin-" + c.substr(0, 12)},
            {"build",
             {{"tree", tree_.tree.string()}, {"ref", c}, {"commit", c}, {"key", "key-" + c}}}};
        if (!hostname_.empty()) file.system["hostname"] = hostname_;
    }
    void begin(RunRecorder&) override {}
    void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                   RunRecorder& recorder) override {
        if (turns_before_kill == 0) killed_here("mid-run");
        if (turns_before_kill > 0) --turns_before_kill;
        const auto at = tree_.number.find(commit_of(label));
        REQUIRE(at != tree_.number.end());
        const double speed = speed_ ? speed_() : 1.0;
        std::normal_distribution<double> noise(0, 0.01);
        std::vector<RunRecord> runs;
        for (std::size_t k : loads) {
            RunRecord r;
            r.load = std::string(plan_.load_names[k]);
            r.index = r.round = static_cast<int>(index);
            const double base = r.load == "no_load" ? 5 : 10;
            r.wall_s = speed * (base * (1 + noise(rng_)) +
                                (r.load != "no_load" && at->second >= tree_.step ? 1.0 : 0.0) +
                                (label.label == track::kPointLabel && r.load != "no_load"
                                     ? point_offsets_[commit_of(label)]
                                     : 0.0));
            r.cpu_pct = 90;
            runs.push_back(r);
        }
        recorder.record(label, runs, 0.01);
    }

  private:
    static std::string commit_of(const LabelRun& label) {
        const std::string& image = label.kernel->image;
        return image.substr(image.rfind('@') + 1);
    }
    const RunPlan& plan_;
    const TreeFacts& tree_;
    std::mt19937_64& rng_;
    std::map<std::string, double>& point_offsets_;
    const std::function<double()>& speed_;
    const std::string& hostname_;
};

// The measuring seam: every run a --kernel run's config and plan through
// the loop itself, figures from CommitFigures; each measurement that
// begins and ends is a line of `log` (a file, so that a forked track's
// count too).
class FakeBench : public track::TrackBench {
  public:
    FakeBench(const TreeFacts& tree, std::filesystem::path work, std::filesystem::path log,
              unsigned seed = 5)
        : tree_(tree), work_(std::move(work)), log_(std::move(log)), rng_(seed) {}

    // As --boot's runs: the first ask of a folder starts its run and
    // yields (AcrossReboots), the next ask finds it over.
    bool across_reboots = false;
    bool goes_on_by_itself(const std::filesystem::path& folder) const override {
        return across_reboots && std::filesystem::exists(folder / "started-across-reboots");
    }
    std::filesystem::path measure_point(const std::string& commit,
                                        const std::filesystem::path& folder) override {
        note("point " + commit + " begun");
        if (tree_.failing.count(commit))
            throw track::PointFailed("does not build: error: the stand-in fails here");
        start_across_reboots(folder);
        const RunOutcome out = run({{track::kPointLabel, tree_.spec(commit)}}, folder, 3, {});
        note("point " + commit + " done");
        return out.labels.front().path();
    }
    std::vector<ResultFile> compare(const std::string& before, const std::string& after,
                                    const std::filesystem::path& folder) override {
        start_across_reboots(folder);
        const RunOutcome out = run(
            {{track::kBeforeLabel, tree_.spec(before)}, {track::kAfterLabel, tree_.spec(after)}},
            folder, 5, {});
        note("compare " + before + " " + after + " done");
        return label_results(out.labels);
    }
    bisect::BisectState bisect(const std::string& good, const std::string& bad,
                               const std::filesystem::path& folder) override {
        note("bisect " + good + " " + bad + " begun");
        if (!bisect_stops.empty()) throw track::PointFailed(bisect_stops);
        start_across_reboots(folder);
        bisect::BisectOptions o;
        o.tree = tree_.tree;
        o.good = good;
        o.bad = bad;
        o.measure = bisect::parse_bisect_measure("time:cpu_load", {"no_load", "cpu_load"});
        o.results = folder;
        o.workdir = work_;
        o.run_words = {"-w", "command", "--workload-cmd", "true", "no_load", "cpu_load"};
        const TakeRounds take = [this](const std::vector<KernelSpec>& kernels,
                                       const std::filesystem::path& into, unsigned rounds,
                                       const bisect::StopRule& stop) {
            const RunOutcome out = run(kernels, into, rounds, stop);
            note("batch " + into.filename().string() + " done");
            return label_results(out.labels);
        };
        return run_bisection(o, take, progress_);
    }
    // A bisection stopped past the bench's bound, with this reason.
    std::string bisect_stops;
    // Seconds more in a point's own runs of a commit (not in a comparison's
    // or a bisection's): that point measured on a bad day.
    std::map<std::string, double> point_offsets;
    // The host's speed at each turn (a factor of every run's Time): none, 1.
    std::function<double()> speed;
    // Called with each line the log is given (a test slows its runs there).
    std::function<void(const std::string&)> noted;
    // Each file's system.hostname (what the database tells machines
    // apart by); "": none, as the run loop's fake files have.
    std::string hostname;

    int count(const std::string& line) const {
        std::ifstream in(log_);
        int n = 0;
        for (std::string l; std::getline(in, l);) n += l == line;
        return n;
    }
    int lines() const {
        std::ifstream in(log_);
        int n = 0;
        for (std::string l; std::getline(in, l);) ++n;
        return n;
    }

  private:
    void note(const std::string& line) {
        std::ofstream(log_, std::ios::app) << line << "\n";
        if (noted) noted(line);
    }
    void start_across_reboots(const std::filesystem::path& folder) {
        if (!across_reboots || goes_on_by_itself(folder)) return;
        std::filesystem::create_directories(folder);
        put_file(folder / "started-across-reboots", "");
        note("started across reboots");
        throw track::AcrossReboots("the fake's run in " + folder.string());
    }
    RunOutcome run(const std::vector<KernelSpec>& kernels, const std::filesystem::path& folder,
                   unsigned rounds, const bisect::StopRule& stop) {
        RunConfig config =
            fake_kernel_run_config(kernels, work_, folder, rounds, 7 + ++runs_, stop);
        RunPlan plan = make_run_plan(config);
        auto backend =
            std::make_unique<CommitFigures>(plan, tree_, rng_, point_offsets, speed, hostname);
        std::optional<KnobGuard> no_knobs;
        const LabelFiles files = run_label_files(config, "2026-12-05T00:00:00Z", {}, progress_);
        return run_rounds(config, plan, std::move(backend), no_knobs, files, progress_);
    }
    const TreeFacts& tree_;
    std::filesystem::path work_, log_;
    std::mt19937_64 rng_;
    unsigned runs_ = 0;
    Progress progress_{Progress::Mode::kQuiet};
};

}  // namespace contest::test
