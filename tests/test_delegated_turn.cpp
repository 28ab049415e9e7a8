// A turn another contest takes (delegated_turn.h): the words it is given
// and the runs made of what it brought back, without a guest or a host.
#include <algorithm>
#include <catch2/catch.hpp>

#include "contest/cli/run_options.h"
#include "contest/run/delegated_turn.h"

using namespace contest;

namespace {

DelegatedTurn a_turn() {
    DelegatedTurn turn;
    turn.label = "-odd label";
    turn.round = 3;
    turn.loads = {"process_load", "no_load"};
    turn.seed = 77;
    turn.workdir = "/mnt/work";
    turn.results = "/mnt/out/results";
    turn.arguments = {"--workload=synthetic"};
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

TEST_CASE("a delegated turn's words: one round of its loads, in the plan's order, as values",
          "[run][delegated]") {
    const auto words = delegated_run_words(a_turn());
    REQUIRE(words.front() == "run");
    CHECK(std::find(words.begin(), words.end(), "--label=-odd label") != words.end());
    CHECK(std::find(words.begin(), words.end(), "--runs=1") != words.end());
    CHECK(std::find(words.begin(), words.end(), "--order=rounds") != words.end());
    CHECK(std::find(words.begin(), words.end(), "--seed=77") != words.end());
    CHECK(std::find(words.begin(), words.end(), "--workload=synthetic") != words.end());
    const auto first = std::find(words.begin(), words.end(), "--load=process_load");
    REQUIRE(first != words.end());
    CHECK(*(first + 1) == "--load=no_load");
    // The other contest's own parser takes them as they are: the label that
    // starts with '-' stays a value.
    std::vector<std::string> own = words;
    std::vector<char*> argv;
    for (auto& w : own) argv.push_back(w.data());
    RunOptions other;
    REQUIRE(other.parse(static_cast<int>(argv.size()), argv.data()));
    CHECK(other.values()["label"].as<std::string>() == "-odd label");
    CHECK(other.values()["load"].as<std::vector<std::string>>() ==
          std::vector<std::string>{"process_load", "no_load"});
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
