// A turn another contest takes (delegated_turn.h): the words it is given
// and the runs made of what it brought back, without a guest or a host.
#include <algorithm>
#include <catch2/catch.hpp>

#include "contest/cli/run_options.h"
#include "contest/result/result_file.h"
#include "contest/run/places/delegated_turn.h"
#include "contest/run/plan/run_journal.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

DelegatedTurn a_turn() {
    DelegatedTurn turn;
    turn.label = "-odd label";
    turn.round = 3;
    turn.loads = {"process_load", "no_load"};
    turn.seed = 77;
    turn.workdir = "/mnt/work";
    turn.results = "/mnt/out/results";
    RunConfig delegated;
    delegated.workload.kind = "synthetic";
    delegated.timeline_hz = 7;
    turn.config = std::make_shared<const RunConfig>(delegated);
    return turn;
}

RunRecord a_run(const std::string& load, int index) {
    RunRecord r;
    r.load = load;
    r.index = r.round = index;
    r.wall_s = 1.5;
    return r;
}

}  // namespace

TEST_CASE(
    "a delegated turn is a journal: one round of its loads, in the plan's order, the run's "
    "delegated config, and words that parse nothing of the run's",
    "[run][delegated][journal]") {
    DelegatedTurn turn = a_turn();
    const RunJournal journal = delegated_turn_journal(turn);
    const RunConfig& c = journal.config;
    CHECK(c.label == "-odd label");
    CHECK(c.runs == 1);
    CHECK_FALSE(c.vm.runs_per_boot);
    CHECK(c.order == RunOrder::rounds);
    CHECK(c.seed == 77u);
    CHECK(c.loads == std::vector<std::string>{"process_load", "no_load"});
    CHECK(c.workload.workdir == "/mnt/work");
    CHECK(c.load.workdir == "/mnt/work");
    CHECK(c.results_dir == "/mnt/out/results");
    CHECK(c.sinks.empty());  // this host's recorder keeps what comes back
    CHECK(c.place == RunPlace::host);
    // The run's delegated config: what the options that reach the other
    // contest set, nothing of the host's.
    CHECK(c.workload.kind == "synthetic");
    CHECK(c.timeline_hz == 7);
    CHECK(c.kernels.empty());
    CHECK_FALSE(c.delegated);
    // It reads back as the other contest reads it.
    CHECK(run_journal_text(run_journal_from_text(run_journal_text(journal), "turn.json")) ==
          run_journal_text(journal));
    CHECK(delegated_run_words("/mnt/out/turn.json") ==
          std::vector<std::string>{"run", "--journal=/mnt/out/turn.json"});
}

TEST_CASE("contest run --journal runs the turn a journal holds, and goes alone",
          "[run][delegated][journal][e2e]") {
    test::ScratchDir dir("delegated-journal");
    DelegatedTurn turn = a_turn();
    turn.label = "turn-a";
    turn.loads = {"no_load"};
    turn.workdir = (dir / "work").string();
    turn.results = (dir / "results").string();
    RunConfig delegated = run_config_of(test::quick_run_words(dir / "ignored"));
    delegated.timeline_hz = 0;
    turn.config = std::make_shared<const RunConfig>(delegated);
    write_run_journal(dir / "turn.json", delegated_turn_journal(turn));
    const auto o = test::run_contest_binary({"run", "--journal=" + (dir / "turn.json").string()},
                                            dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    std::vector<std::string> bad;
    const auto files = read_result_paths({dir / "results" / "turn-a"}, bad);
    REQUIRE(files.size() == 1);
    REQUIRE(files[0].runs.size() == 1);
    CHECK(files[0].runs[0].load == "no_load");
    CHECK(files[0].runs[0].ok());
    CHECK(files[0].config["order_seed"] == 77);
    CHECK_FALSE(fs::exists(dir / "ignored"));
    CHECK_FALSE(fs::exists(dir / "results" / "history.sqlite"));
    // Any option beside it is refused: the journal holds the whole run.
    const auto both = test::run_contest_binary(
        {"run", "--journal=" + (dir / "turn.json").string(), "--runs=2"}, dir.path(), dir.path());
    CHECK(both.exit_code == 2);
    CHECK(both.err.find("--journal goes alone (the journal holds the run): --runs given too") !=
          std::string::npos);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a delegated turn's runs: the other's records, a failed run for each load it lacks",
          "[run][delegated]") {
    const DelegatedTurn turn = a_turn();
    SECTION("every load brought back: its record, in the turn's round") {
        ResultFile file;
        file.runs = {a_run("no_load", 1), a_run("process_load", 1)};
        const auto runs = runs_brought_back(turn, file, "", RunStatus::guest_failed, "guest", "");
        REQUIRE(runs.size() == 2);
        CHECK(runs[0].load == "process_load");
        CHECK(runs[1].load == "no_load");
        for (const auto& r : runs) {
            CHECK(r.ok());
            CHECK(r.round == 3);
            CHECK(r.index == 3);
            CHECK(r.wall_s == 1.5);
        }
    }
    SECTION("one load missing: failed, saying who did not run it") {
        ResultFile file;
        file.runs = {a_run("no_load", 1)};
        const auto runs =
            runs_brought_back(turn, file, "", RunStatus::guest_failed, "guest of kernel a", "; x");
        REQUIRE(runs.size() == 2);
        CHECK(runs[0].status == RunStatus::guest_failed);
        CHECK(runs[0].reason == "guest of kernel a did not run process_load; x");
        CHECK(runs[1].ok());
    }
    SECTION(
        "--runs-per-boot: the loads again in each of the other's rounds, each time runs of "
        "their own, numbered by boot and place in it") {
        DelegatedTurn twice = turn;
        twice.runs = 2;
        CHECK(delegated_turn_journal(twice).config.runs == 2);
        ResultFile file;
        file.runs = {a_run("process_load", 1), a_run("no_load", 1), a_run("process_load", 2)};
        file.runs[0].wall_s = 1.0;
        file.runs[2].wall_s = 2.0;
        const auto runs = runs_brought_back(twice, file, "", RunStatus::guest_failed, "guest", "");
        REQUIRE(runs.size() == 4);
        const std::vector<std::string> loads = {"process_load", "no_load", "process_load",
                                                "no_load"};
        for (std::size_t i = 0; i < 4; ++i) {
            INFO(i);
            CHECK(runs[i].load == loads[i]);
            CHECK(runs[i].boot == 3);
            CHECK(runs[i].run_in_boot == static_cast<int>(i / 2 + 1));
            // Round 3's runs after rounds 1 and 2's two each.
            CHECK(runs[i].round == static_cast<int>(4 + i / 2 + 1));
            CHECK(runs[i].index == runs[i].round);
        }
        CHECK(runs[0].wall_s == 1.0);
        CHECK(runs[2].wall_s == 2.0);
        CHECK(runs[1].ok());
        // no_load's second run never came back: failed, saying which.
        CHECK(runs[3].status == RunStatus::guest_failed);
        CHECK(runs[3].reason == "guest did not run no_load (its run 2)");
        // Each boot's runs in the result file, read back as written.
        ResultFile written;
        written.label = "a";
        written.runs = {runs[2]};
        const ResultFile read = result_from_json(to_json(written), "written");
        REQUIRE(read.runs.size() == 1);
        CHECK(read.runs[0].boot == 3);
        CHECK(read.runs[0].run_in_boot == 2);
    }
    SECTION("the turn failed as a whole: every load failed with its why, a failed run is data") {
        const auto runs = runs_brought_back(turn, std::nullopt, "the guest hung",
                                            RunStatus::guest_failed, "guest", "");
        REQUIRE(runs.size() == 2);
        for (const auto& r : runs) {
            CHECK(r.status == RunStatus::guest_failed);
            CHECK(r.reason == "the guest hung");
            CHECK(r.round == 3);
        }
    }
}
