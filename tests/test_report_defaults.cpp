// What `contest report` and `contest compare` read when not told: what a
// person ran in results/, never the committed examples beside it
// (results/examples, other machines' runs), which are read when named.
#include <algorithm>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "contest/result/result_file.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

TEST_CASE(
    "report and compare read what you ran in results/ by default, the committed examples only "
    "when named",
    "[report][compare][e2e]") {
    test::ScratchDir dir("report-defaults");
    const fs::path results = dir / "results";
    // A checkout's results/: the examples (three kernels of another machine)...
    fs::create_directories(results / "examples");
    fs::copy(report_test::fixture_dir(), results / "examples", fs::copy_options::recursive);
    // ...and nothing of the person's yet: told so, and where the examples are.
    auto o = test::run_contest_binary({"report"}, dir.path(), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err ==
          "contest: no result files of your own in results (contest run writes them there); the "
          "committed examples are read when named: results/examples\n");

    // Their one run, as `make run` leaves it (a label's folder, the
    // database beside it, which is no result file).
    ResultFile mine =
        read_result_file(report_test::fixture_dir() / "6.1.0-rt" / "2024-05-03T090000Z.json");
    mine.label = "mine";
    test::put_file(results / "mine" / "2026-12-07T000000Z.json", to_json(mine).dump(1));
    test::put_file(results / "history.sqlite", "not a result file");
    o = test::run_contest_binary({"report"}, dir.path(), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.out.find("mine") != std::string::npos);
    CHECK(o.out.find("6.1.0-hz100") == std::string::npos);
    CHECK(o.err.find("skipping") == std::string::npos);
    // The examples when named: the folder, or the results folder whole.
    for (const std::string named : {"results/examples", "results"}) {
        o = test::run_contest_binary({"report", named}, dir.path(), dir.path());
        INFO(named << ": " << o.err);
        CHECK(o.exit_code == 0);
        CHECK(o.out.find("6.1.0-hz100") != std::string::npos);
    }

    // compare looks its labels up among what was run, the examples when
    // --results names them.
    o = test::run_contest_binary({"compare", "6.1.0-hz100", "mine"}, dir.path(), dir.path());
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.find("'6.1.0-hz100' is neither a result file nor a label in results (labels "
                     "there: mine)") != std::string::npos);
    o = test::run_contest_binary(
        {"compare", "--results", "results/examples", "6.1.0-hz100", "6.1.0-hz1000"}, dir.path(),
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.out.find("6.1.0-hz1000") != std::string::npos);
}
