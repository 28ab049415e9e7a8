// A new place is its own file and an entry in the place table (places.h):
// this file is a fake place's whole, as a LAVA or SSH place's would be its
// own (deploy/lava has the job definition such a place would submit). Added
// to the table here (ExtraPlace), it is chosen by its own option, and
// `contest run`'s words reach its life's start, advance, status and abort
// through cmd_run's own entry point, which names no place: the fake's
// backend writes down each turn it takes, as a LAVA place would submit a
// job, and its run's journal is the journal every run keeps. A bisection's
// batch at it is started and taken on through the same life (drive/at_place.h),
// no drive/ code changed for it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "contest/cli/commands.h"
#include "contest/cli/run_options.h"
#include "contest/drive/at_place.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_journal.h"
#include "contest/run/rounds/run_driver.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

using namespace contest;

namespace {

namespace fs = std::filesystem;

// A value beyond run_place.h's: the fake's, named "fake" in its journal.
constexpr RunPlace kFakeValue = static_cast<RunPlace>(100);

// The fake's options as parsed.
struct FakeArguments {
    std::vector<std::string> things;  // --fake LABEL=THING
    std::string continue_journal;     // --fake-continue JOURNAL
    bool status = false, abort = false;
};

fs::path fake_journal(const fs::path& results) {
    return results / "fake.run-journal";
}

// The fake's backend: each turn it takes, written down ("round 1 a").
std::vector<std::string>& backend_took() {
    static std::vector<std::string> took;
    return took;
}

// What the stop rule each start was given said of round 1 ("no rule"
// without one): a caller's rule (a bisection's, a function no journal
// holds) reaches the place's life.
std::vector<std::string>& rules_said() {
    static std::vector<std::string> said;
    return said;
}

// The journal owning the fake's runs ("": none): a step that ends a run
// hands over to it, as a --boot part's last step does to its bisection.
fs::path& fake_owner() {
    static fs::path owner;
    return owner;
}

// The place's hooks around the one driver's loop (run_driver.h): the
// journal's next turn taken by the backend, then a yield, as a place that
// waits for a lab between turns would.
class OneTurnThenYield final : public JournalPlace {
  public:
    explicit OneTurnThenYield(RunJournal& journal) : journal_(journal) {}

    TurnTaken take_next() override {
        if (took_) return TurnTaken::yields;
        const std::size_t i = journal_.turns.next;
        const JournalTurn& turn = journal_.turns.list[i];
        backend_took().push_back("round " + std::to_string(turn.round) + " " +
                                 journal_.config.kernels.at(turn.label).label);
        journal_.turns.mark(i, TurnStatus::done);
        took_ = true;
        return TurnTaken::taken;
    }
    void end() override {}

  private:
    RunJournal& journal_;
    bool took_ = false;
};

class FakeLife final : public PlaceLife {
  public:
    explicit FakeLife(std::shared_ptr<const FakeArguments> a) : a_(std::move(a)) {}

    std::optional<LifeAsked> asked() const override {
        return verb_options_asked("fake", a_->status, a_->abort, a_->continue_journal);
    }

    // The run's journal made (every label's turn in every round), and its
    // first turn taken; or the run a journal given holds taken on.
    LifeStep start(const LifeStart& start, Progress& progress) override {
        rules_said().push_back(start.config.stop_rule ? start.config.stop_rule(1, {}) : "no rule");
        if (!start.journal.empty()) return advance(start.journal, progress);
        RunJournal journal;
        journal.config = start.config;
        journal.config.seed = 1;
        journal.started_at = "2026-12-07T08:00:00Z";
        for (unsigned round = 1; round <= journal.config.runs; ++round)
            for (std::size_t label = 0; label < journal.config.kernels.size(); ++label)
                journal.turns.list.push_back(
                    {round, label, journal.config.loads, TurnStatus::pending});
        for (const auto& kernel : journal.config.kernels)
            journal.results.push_back(journal.config.results_dir / kernel.label / "fake.json");
        fs::create_directories(journal.config.results_dir);
        return step(fake_journal(journal.config.results_dir), journal);
    }

    LifeStep advance(const fs::path& path, Progress&) override {
        RunJournal journal = read_run_journal(path);
        return step(path, journal);
    }

    int status(const fs::path& results) override {
        if (!fs::exists(fake_journal(results))) {
            std::cout << "nothing under way in " << results.string() << "\n";
            return kExitOk;
        }
        const RunJournal journal = read_run_journal(fake_journal(results));
        std::size_t done = 0, stopped = 0;
        for (const auto& turn : journal.turns.list) {
            done += turn.status == TurnStatus::done;
            stopped += turn.status == TurnStatus::interrupted;
        }
        std::cout << "fake run: " << done << " of " << journal.turns.list.size() << " turns taken"
                  << (stopped ? ", aborted" : "") << "\n";
        return kExitOk;
    }

    int abort(const fs::path& results) override {
        RunJournal journal = read_run_journal(fake_journal(results));
        for (auto& turn : journal.turns.list)
            if (turn.status == TurnStatus::pending) turn.status = TurnStatus::interrupted;
        journal.turns.next = journal.turns.list.size();
        write_run_journal(fake_journal(results), journal);
        return kExitOk;
    }

  private:
    static LifeStep step(const fs::path& path, RunJournal& journal) {
        OneTurnThenYield place(journal);
        drive_turns(journal.turns, place);
        write_run_journal(path, journal);
        LifeStep out;
        out.yields = journal.turns.next < journal.turns.list.size();
        // The run ended: its owner goes on, in the containment this step
        // held (as the boot place's step that ends a part hands its own on).
        if (!out.yields && !fake_owner().empty()) {
            out.owner = fake_owner();
            out.containment = RunContainment::set_up();
        }
        return out;
    }

    std::shared_ptr<const FakeArguments> a_;
};

PlaceOptions fake_options(RunConfig& config);

// The fake's life of a run's journal: none of its options kept there.
std::shared_ptr<PlaceLife> fake_journal_life(const RunJournal&) {
    return std::make_shared<FakeLife>(std::make_shared<const FakeArguments>());
}

const PlaceInfo kFakePlace{
    .place = kFakeValue,
    .name = "fake",
    .option = "fake",
    .value_name = "THING",
    .excludes = {kKernelsTakeRounds, kKernelsNameLabels},
    .options = fake_options,
    .labels = kernel_labels,
    .runs = plan_kernel_runs,
    .backend = nullptr,  // its life takes no round in this contest's loop
    .journal_life = fake_journal_life,
};

PlaceOptions fake_options(RunConfig&) {
    using enum OptionScope;
    auto a = std::make_shared<FakeArguments>();
    PlaceOptions options;
    options.rows = {
        place_option_row(kFakePlace, &a->things, "once or more: a fake lab's THING"),
        {"fake-continue", host, po::value(&a->continue_journal)->value_name("JOURNAL"),
         "the fake run's next turn"},
        {"fake-status", host, po::bool_switch(&a->status), "how the fake run stands"},
        {"fake-abort", host, po::bool_switch(&a->abort), "stop the fake run"},
    };
    options.finish = [a](const ParsedWords&, RunConfig& c) {
        if (c.place == kFakeValue) c.kernels = label_specs(a->things);
    };
    options.life = std::make_shared<FakeLife>(a);
    return options;
}

// `contest run WORDS...` through its entry point, in this process.
int contest_run(std::vector<std::string> words) {
    words.insert(words.begin(), "run");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    return cmd_run(static_cast<int>(argv.size()), argv.data());
}

// What `contest run WORDS...` printed on stdout.
std::string printed_by(const std::vector<std::string>& words) {
    std::ostringstream out;
    std::streambuf* was = std::cout.rdbuf(out.rdbuf());
    try {
        CHECK(contest_run(words) == kExitOk);
    } catch (...) {
        std::cout.rdbuf(was);
        throw;
    }
    std::cout.rdbuf(was);
    return out.str();
}

bool run_has_option(const std::string& name) {
    RunOptions run;
    for (const TableOption& o : run.table())
        if (o.description->long_name() == name) return true;
    return false;
}

}  // namespace

TEST_CASE(
    "a place added to the table is chosen by its own option, and contest run's words start, "
    "advance, show and stop its run through its entry alone",
    "[places]") {
    test::ScratchDir dir("fake-place");
    const std::string results = (dir / "results").string();
    backend_took().clear();
    {
        const ExtraPlace fake(kFakePlace);
        CHECK(run_has_option("fake"));
        CHECK(run_has_option("fake-status"));
        CHECK(printed_by({"--fake-status", "--results", results}) ==
              "nothing under way in " + results + "\n");

        // start: the journal made, the first turn taken, and a yield.
        CHECK(contest_run({"--fake", "a=one", "--fake", "b=two", "--runs", "2", "--order", "rounds",
                           "--results", results, "-q"}) == kExitOk);
        CHECK(backend_took() == std::vector<std::string>{"round 1 a"});
        const fs::path journal = fake_journal(results);
        const RunJournal made = read_run_journal(journal);  // its place read back by name
        CHECK(made.config.place == kFakeValue);
        CHECK(made.turns.list.size() == 4);
        CHECK(made.turns.next == 1);
        CHECK(printed_by({"--fake-status", "--results", results}) ==
              "fake run: 1 of 4 turns taken\n");

        // advance: a turn each, in the journal's order, until none is left.
        for (int i = 0; i < 3; ++i)
            CHECK(contest_run({"--fake-continue", journal.string(), "-q"}) == kExitOk);
        CHECK(backend_took() ==
              std::vector<std::string>{"round 1 a", "round 1 b", "round 2 a", "round 2 b"});
        CHECK(contest_run({"--fake-continue", journal.string(), "-q"}) == kExitOk);
        CHECK(backend_took().size() == 4);
        CHECK(printed_by({"--fake-status", "--results", results}) ==
              "fake run: 4 of 4 turns taken\n");

        // abort: the turns not taken stopped, none taken after it.
        const std::string other = (dir / "other").string();
        CHECK(contest_run({"--fake", "a=one", "--runs", "3", "--results", other, "-q"}) == kExitOk);
        CHECK(contest_run({"--fake-abort", "--results", other}) == kExitOk);
        CHECK(printed_by({"--fake-status", "--results", other}) ==
              "fake run: 1 of 3 turns taken, aborted\n");
        CHECK(contest_run({"--fake-continue", fake_journal(other).string(), "-q"}) == kExitOk);
        CHECK(backend_took().size() == 5);

        // Its refusals are the table's and its own, one line each (exit 2).
        CHECK_THROWS_WITH(
            contest_run({"--fake", "a=one", "--order", "blocks", "--results", results}),
            "--order blocks does not go with --fake: a round boots each kernel once (--order "
            "shuffled or rounds)");
        CHECK_THROWS_WITH(contest_run({"--fake", "a=one", "--kernel", "b=x", "--results", results}),
                          "--fake does not go with --kernel");
        CHECK_THROWS_WITH(contest_run({"--fake-status", "--fake-abort", "--results", results}),
                          "--fake-status, --fake-abort and --fake-continue go one at a time");
        CHECK_THROWS_AS(contest_run({"--fake-status", "--fake-abort", "--results", results}),
                        UsageError);
    }
    // Gone with its entry.
    CHECK_FALSE(run_has_option("fake"));
    CHECK_THROWS_AS(place_info(kFakeValue), std::logic_error);
}

TEST_CASE(
    "the host's life, reached through its entry as contest run reaches it, has no run under way "
    "once its contest has ended: nothing to show, nothing to stop",
    "[places]") {
    test::ScratchDir dir("host-life");
    RunConfig config;
    const PlaceOptions options = place_info(RunPlace::host).options(config);
    REQUIRE(options.life);
    CHECK_FALSE(options.life->asked());
    std::ostringstream out;
    std::streambuf* was = std::cout.rdbuf(out.rdbuf());
    const int status = options.life->status(dir.path());
    std::cout.rdbuf(was);
    CHECK(status == kExitOk);
    CHECK_THAT(out.str(), Catch::StartsWith("nothing under way in " + dir.path().string()));
    CHECK_THROWS_AS(options.life->abort(dir.path()), UsageError);
}

TEST_CASE(
    "the reboot place's own options ask its life's verbs: --boot-status of a folder with no run "
    "says so, and two verbs at once are refused in one line, exit 2",
    "[places][e2e]") {
    test::ScratchDir dir("boot-life");
    const std::string results = (dir / "results").string();
    const auto status =
        test::run_contest_binary({"run", "--boot-status", "--results", results}, dir.path());
    CHECK(status.exit_code == kExitOk);
    CHECK(status.out == "no boot run in " + results + "\n");
    const auto two = test::run_contest_binary(
        {"run", "--boot-status", "--boot-abort", "--results", results}, dir.path());
    CHECK(two.exit_code == 2);
    CHECK_THAT(two.err, Catch::Contains("--boot-status, --boot-abort and --boot-continue go one "
                                        "at a time"));
    CHECK(std::count(two.err.begin(), two.err.end(), '\n') == 1);
    CHECK_FALSE(fs::exists(results));
}

TEST_CASE(
    "a bisection's batch at a place added to the table is started, and taken on when cut short, "
    "through the place's life with the batch's stop rule: the drive layer names no place",
    "[places][bisect]") {
    test::ScratchDir dir("fake-batch");
    const fs::path folder = dir / "step-1";
    backend_took().clear();
    rules_said().clear();
    const ExtraPlace fake(kFakePlace);
    RunJournal batch;
    batch.config = run_config_of({"--fake", "good=one", "--fake", "bad=two", "--runs", "2",
                                  "--order", "rounds", "--results", folder.string(), "-q"});
    const bisect::StopRule stop = [](unsigned round, const std::vector<ResultFile>&) {
        return "asked of round " + std::to_string(round);
    };
    Progress progress = Progress::for_stderr(true);
    // Started: its first turn taken at the place, which yields.
    CHECK(drive::advance_at_place(batch, std::nullopt, stop, progress) == drive::AtPlace::yields);
    CHECK(backend_took() == std::vector<std::string>{"round 1 good"});
    CHECK(rules_said() == std::vector<std::string>{"asked of round 1"});
    // Cut short, it is taken on from its run's journal.
    const fs::path journal = fake_journal(folder);
    CHECK(drive::advance_at_place(batch, journal, stop, progress) == drive::AtPlace::yields);
    CHECK(backend_took() == std::vector<std::string>{"round 1 good", "round 1 bad"});
    CHECK(rules_said().size() == 2);
    CHECK(read_run_journal(journal).turns.next == 2);
    // A run of other kernels is not this batch's: refused, one line.
    batch.config.kernels[1].image = "three";
    CHECK_THROWS_WITH(drive::advance_at_place(batch, journal, stop, progress),
                      "contest bisect: " + journal.string() +
                          ": a run of other kernels than this batch's: remove " + folder.string() +
                          " and run again");
    CHECK(backend_took().size() == 2);
}

TEST_CASE(
    "a step that ends a run another journal owns hands its containment on: the owner goes on in "
    "it, no other set up in that contest",
    "[places][bisect]") {
    test::ScratchDir dir("fake-owner");
    const std::string results = (dir / "results").string();
    backend_took().clear();
    const ExtraPlace fake(kFakePlace);
    CHECK(contest_run({"--fake", "a=one", "--fake", "b=two", "--runs", "1", "--results", results,
                       "-q"}) == kExitOk);
    // The owner's folder holds no bisection: said, and the step done all the same.
    fake_owner() = dir / "bisection";
    const unsigned before = RunContainment::set_ups();
    const int code = contest_run({"--fake-continue", fake_journal(results).string(), "-q"});
    const unsigned made = RunContainment::set_ups() - before;
    fake_owner().clear();
    CHECK(code == kExitOk);
    CHECK(backend_took() == std::vector<std::string>{"round 1 a", "round 1 b"});
    CHECK(made == 1);  // the step's, handed on
}
