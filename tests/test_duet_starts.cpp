// What a report says of a --duet run's starts (contest/analysis/duet_starts.h):
// a note where the barrier held, a warning where it did not, a note where
// --duet was not taken, and nothing made of what a file holds wrongly.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contest/analysis/duet_starts.h"

using namespace contest;

namespace {

// A label's file whose rounds' boots hold these starts (one boot a round).
ResultFile duet_file(const std::string& label, const std::vector<nlohmann::json>& rounds) {
    ResultFile f;
    f.label = label;
    f.config["vm"]["duet"] = {{"asked", true}, {"taken", true}};
    for (std::size_t r = 0; r < rounds.size(); ++r)
        f.config["vm"]["boots"].push_back(
            {{"round", r + 1}, {"up_s", 10}, {"total_s", 60}, {"duet", {{"starts", rounds[r]}}}});
    return f;
}

nlohmann::json start(const std::string& load, double after_go_s, double spread_s) {
    return {{"run", 1}, {"load", load}, {"after_go_s", after_go_s}, {"spread_s", spread_s}};
}

}  // namespace

TEST_CASE("a report says a duet's barrier held, and how close the starts were", "[duet][report]") {
    ReportModel model;
    note_duet_starts(
        {duet_file("a", {{start("no_load", 0.001, 0.002)}, {start("cpu_load", 0, 0.004)}}),
         duet_file("b", {{start("no_load", 0, 0.002)}, {start("cpu_load", 0.004, 0.004)}})},
        model);
    CHECK(model.warnings.empty());
    REQUIRE(model.notes.size() == 1);
    CHECK(model.notes.front() ==
          "Duet: the guests of a, b ran at once, each on host CPUs of its own, every run started "
          "in all of a round's guests within 4.0 ms (the widest: round 2, cpu_load).");
}

TEST_CASE("a report warns where a duet's barrier did not hold: a start before go, or far apart",
          "[duet][report]") {
    ReportModel model;
    note_duet_starts({duet_file("a", {{start("no_load", -2.1, 2.1), start("cpu_load", 0, 0.003)}}),
                      duet_file("b", {{start("no_load", 0, 0.7)}}),
                      duet_file("c", {{start("no_load", 0, 0.002)}})},
                     model);
    REQUIRE(model.warnings.size() == 2);
    CHECK(model.warnings[0] ==
          "a: --duet: the start barrier did not hold in 1 of 2 runs (1 started before it let "
          "them go; the widest spread of the guests' starts 2.100 s, round 1, no_load): those "
          "runs were not taken at one moment");
    CHECK_THAT(model.warnings[1], Catch::StartsWith("b: --duet: the start barrier did not hold "
                                                    "in 1 of 1 runs (the widest spread"));
    // c's held: its note names it alone.
    REQUIRE(model.notes.size() == 1);
    CHECK_THAT(model.notes.front(), Catch::StartsWith("Duet: the guests of c ran at once"));
}

TEST_CASE("a report says --duet was asked and not taken, and a file's wrong fields make nothing up",
          "[duet][report]") {
    ResultFile not_taken;
    not_taken.label = "a";
    not_taken.config["vm"]["duet"] = {
        {"asked", true}, {"taken", false}, {"why_not", "2 guests of 2 CPUs (--vm-cpus) need 4"}};
    ResultFile wrong = duet_file("b", {});
    wrong.config["vm"]["boots"] = {
        {{"round", "1"}, {"duet", {{"starts", {{{"spread_s", "9"}, {"after_go_s", "-1"}}}}}}},
        {{"duet", {{"starts", 7}}}},
        "x"};
    ReportModel model;
    note_duet_starts({not_taken, wrong}, model);
    CHECK(model.warnings.empty());
    REQUIRE(model.notes.size() == 1);
    CHECK(model.notes.front() ==
          "a: --duet was asked, and not taken (2 guests of 2 CPUs (--vm-cpus) need 4): its "
          "guests took their turns one after another.");
    // No duet at all: nothing said.
    ReportModel plain;
    ResultFile host;
    host.label = "h";
    note_duet_starts({host}, plain);
    CHECK(plain.notes.empty());
    CHECK(plain.warnings.empty());
}
