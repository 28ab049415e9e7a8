// contest export: the KCIDB submission's objects and links, the statuses
// only against a named baseline and only where a verdict was reached, the
// tree and commit a label records, ids from the files' content, and a bad
// --origin refused. (tests/kcidb/check-schema validates the export of the
// committed examples against the schema document.)
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/report_model.h"
#include "contest/report/kcidb_export.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "report_fixtures.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::report_test;

namespace {

nlohmann::ordered_json exported(const std::vector<ResultFile>& files, const std::string& baseline,
                                bool judged) {
    ReportOptions o;
    o.baseline = baseline;
    o.print_warnings = false;
    KcidbOptions k;
    k.origin = "contest_ci";
    k.judged = judged;
    return kcidb_submission(files, build_report_model(files, o), k);
}

// label -> path -> the test.
std::map<std::string, std::map<std::string, nlohmann::ordered_json>> tests_of(
    const nlohmann::ordered_json& submission) {
    std::map<std::string, std::map<std::string, nlohmann::ordered_json>> out;
    for (const auto& t : submission["tests"])
        out[t["misc"]["label"].get<std::string>()][t["path"].get<std::string>()] = t;
    return out;
}

bool holds_null(const nlohmann::ordered_json& j) {
    if (j.is_null()) return true;
    if (j.is_structured())
        for (const auto& item : j)
            if (holds_null(item)) return true;
    return false;
}

}  // namespace

TEST_CASE("kcidb export: no property is null, not even in misc", "[kcidb]") {
    // The --kernel example's fingerprint has facts it could not read (null
    // beside their reason); KCIDB takes no null property.
    std::vector<std::string> bad;
    const auto files = read_result_paths(
        {std::filesystem::path(CONTEST_SOURCE_DIR) / "results" / "examples" / "kernels-tcg"}, bad);
    REQUIRE(files.size() == 2);
    REQUIRE(files.front().system["kernel"]["preemption"].dump().find("null") != std::string::npos);
    const auto s = exported(files, files.front().label, true);
    CHECK_FALSE(holds_null(s));
    CHECK(s["tests"].size() > 30);
}

TEST_CASE("kcidb export: a checkout and a build per label, tests linked to their build",
          "[kcidb]") {
    const auto s = exported(fixture_files(), "6.1.0-hz100", false);
    CHECK(s["version"] == nlohmann::ordered_json({{"major", 4}, {"minor", 4}}));
    REQUIRE(s["checkouts"].size() == 3);
    REQUIRE(s["builds"].size() == 3);
    std::set<std::string> checkouts, builds;
    for (const auto& c : s["checkouts"]) checkouts.insert(c["id"].get<std::string>());
    for (const auto& b : s["builds"]) {
        CHECK(checkouts.count(b["checkout_id"].get<std::string>()) == 1);
        builds.insert(b["id"].get<std::string>());
    }
    CHECK(checkouts.size() == 3);
    for (const auto& t : s["tests"]) {
        INFO(t.dump());
        CHECK(builds.count(t["build_id"].get<std::string>()) == 1);
        CHECK(t["id"].get<std::string>().starts_with("contest_ci:"));
        CHECK(t["path"].get<std::string>().starts_with("contest."));
        CHECK(t["number"]["value"].is_number());
        CHECK_FALSE(t.contains("status"));  // no baseline named
    }
    const auto tests = tests_of(s);
    CHECK(tests.at("6.1.0-hz1000").at("contest.process_load.time_s")["number"]["unit"] == "s");
    CHECK(tests.at("6.1.0-hz1000").at("contest.process_load.loads")["number"]["unit"] ==
          "ring hops");
    CHECK(tests.at("6.1.0-hz100").count("contest.no_load.loads") == 0);  // no load ran there
}

TEST_CASE("kcidb export: PASS or FAIL only against a named baseline, where a verdict was reached",
          "[kcidb]") {
    const auto tests = tests_of(exported(fixture_files(), "6.1.0-hz100", true));
    const auto& hz1000 = tests.at("6.1.0-hz1000");
    // Slower beyond noise under process_load; no difference under cpu_load.
    CHECK(hz1000.at("contest.process_load.time_s")["status"] == "FAIL");
    CHECK(hz1000.at("contest.process_load.time_s")["misc"]["against"]["significant"] == true);
    // No difference beyond noise where the test could see 5% (the default
    // --target-mde): PASS; where it could see only 21.7%: no verdict (DONE).
    CHECK(hz1000.at("contest.no_load.time_s")["status"] == "PASS");
    CHECK(hz1000.at("contest.cpu_load.time_s")["status"] == "DONE");
    CHECK(hz1000.at("contest.cpu_load.time_s")["misc"]["against"]["could_see"] == "±21.7%");
    CHECK_FALSE(hz1000.at("contest.process_load.loads").contains("status"));  // no test of it
    // 6.1.0-rt: two runs a load, not judged; the baseline: nothing to judge.
    CHECK_FALSE(tests.at("6.1.0-rt").at("contest.process_load.time_s").contains("status"));
    for (const auto& [path, t] : tests.at("6.1.0-hz100")) CHECK_FALSE(t.contains("status"));
}

TEST_CASE("kcidb export: a test that could not see the change asked for is DONE, not PASS",
          "[kcidb]") {
    // The committed --kernel example under TCG: rt's no_load is +27.5% by
    // its test, which could see only a change over 1000%.
    std::vector<std::string> bad;
    const auto files = read_result_paths(
        {std::filesystem::path(CONTEST_SOURCE_DIR) / "results" / "examples" / "kernels-tcg"}, bad);
    REQUIRE(files.size() == 2);
    const auto tests = tests_of(exported(files, "generic", true));
    int judged = 0;
    for (const auto& [path, t] : tests.at("rt")) {
        if (!t.contains("status")) continue;
        INFO(path << ": " << t.dump());
        ++judged;
        CHECK(t["status"] == "DONE");
        CHECK(t["misc"]["against"]["no_verdict"].get<std::string>().find("could see only") !=
              std::string::npos);
    }
    CHECK(judged == 7);
    const auto& time = tests.at("rt").at("contest.no_load.time_s");
    CHECK(time["misc"]["against"]["no_verdict"] ==
          "these runs could see only a change over ±1000%, not one of 5% (--target-mde): no "
          "PASS or FAIL");
    // The ids carry the level a PASS needs: another level, other claims.
    ReportOptions o;
    o.baseline = "generic";
    o.print_warnings = false;
    KcidbOptions k;
    k.origin = "contest_ci";
    k.judged = true;
    k.target_mde_pct = 2000;
    const auto loose = tests_of(kcidb_submission(files, build_report_model(files, o), k));
    CHECK(loose.at("rt").at("contest.no_load.time_s")["status"] == "PASS");
    CHECK(loose.at("rt").at("contest.no_load.time_s")["id"] != time["id"]);
}

namespace {

// A label of a --vary run, its runs paired round by round with the others'.
ResultFile paired_file(const std::string& label, const std::vector<double>& walls) {
    ResultFile f = make_result(label, {{"no_load", walls}});
    f.config = {{"order", "shuffled"}, {"vary", {{"group", "g1"}}}};
    for (auto& r : f.runs) r.round = r.index;
    return f;
}

}  // namespace

TEST_CASE("kcidb export: FAIL follows the test's effect, not the means", "[kcidb]") {
    // In most rounds new is 5% slower (short rounds); in two long rounds it
    // is 4% faster. The paired test (per-round log differences) finds it
    // slower beyond noise, while its arithmetic mean is lower.
    std::vector<double> base, fresh;
    for (int i = 0; i < 12; ++i) {
        const bool long_round = i % 6 == 5;
        const double b = long_round ? 100 : 1 + 0.01 * i;
        base.push_back(b);
        fresh.push_back(b * (long_round ? 0.96 : 1.05 + 0.002 * (i % 3)));
    }
    const std::vector<ResultFile> files = {paired_file("base", base), paired_file("new", fresh)};
    ReportOptions o;
    o.baseline = "base";
    o.print_warnings = false;
    o.min_effect_pct = 0;
    const ReportModel model = build_report_model(files, o);
    const Cell* cell = model.find_cell("no_load", "new");
    REQUIRE(cell);
    REQUIRE(cell->versus);
    REQUIRE(cell->versus->time_test);
    REQUIRE(cell->versus->significant);
    REQUIRE(cell->versus->time_test->effect_pct > 0);
    REQUIRE(cell->time.mean < model.find_cell("no_load", "base")->time.mean);
    KcidbOptions k;
    k.origin = "contest_ci";
    k.judged = true;
    const auto tests = tests_of(kcidb_submission(files, model, k));
    CHECK(tests.at("new").at("contest.no_load.time_s")["status"] == "FAIL");
}

TEST_CASE("kcidb export: the tree and commit a label records, else its release", "[kcidb]") {
    auto files = fixture_files();
    for (auto& f : files)
        if (f.label == "6.1.0-rt")
            f.config["kernel"] = {{"commit", "0123456789abcdef0123456789abcdef01234567"},
                                  {"repository", "https://git.kernel.org/pub/scm/linux.git"},
                                  {"tree_name", "mainline"}};
        else if (f.label == "6.1.0-hz1000")
            f.config["kernel"] = {{"commit", "abc123"}, {"repository", "/home/me/linux"}};
    const auto s = exported(files, "6.1.0-hz100", false);
    std::map<std::string, nlohmann::ordered_json> by_label;
    for (const auto& c : s["checkouts"]) by_label[c["misc"]["label"].get<std::string>()] = c;
    const auto& rt = by_label.at("6.1.0-rt");
    CHECK(rt["git_commit_hash"] == "0123456789abcdef0123456789abcdef01234567");
    CHECK(rt["git_repository_url"] == "https://git.kernel.org/pub/scm/linux.git");
    CHECK(rt["tree_name"] == "mainline");
    // What KCIDB would refuse (a short hash, a local path) is left out.
    const auto& hz1000 = by_label.at("6.1.0-hz1000");
    CHECK_FALSE(hz1000.contains("git_commit_hash"));
    CHECK_FALSE(hz1000.contains("git_repository_url"));
    CHECK(hz1000["git_commit_name"] == hz1000["misc"]["kernel_release"]);
}

TEST_CASE("kcidb export: ids come from the files' content, not from when they are exported",
          "[kcidb]") {
    auto files = fixture_files();
    const auto first = exported(files, "6.1.0-hz100", true);
    CHECK(exported(files, "6.1.0-hz100", true) == first);
    // One run of 6.1.0-rt measured differently: its objects are new ones,
    // the other labels' untested objects keep their ids.
    for (auto& f : files)
        if (f.label == "6.1.0-rt") f.runs.front().wall_s += 1;
    const auto changed = exported(files, "6.1.0-hz100", false);
    const auto before = tests_of(exported(fixture_files(), "6.1.0-hz100", false));
    const auto after = tests_of(changed);
    CHECK(after.at("6.1.0-rt").at("contest.no_load.time_s")["id"] !=
          before.at("6.1.0-rt").at("contest.no_load.time_s")["id"]);
    CHECK(after.at("6.1.0-hz1000").at("contest.no_load.time_s")["id"] ==
          before.at("6.1.0-hz1000").at("contest.no_load.time_s")["id"]);
    // A judged test's id is not the unjudged one's: its status is another claim.
    CHECK(tests_of(first).at("6.1.0-hz1000").at("contest.no_load.time_s")["id"] !=
          before.at("6.1.0-hz1000").at("contest.no_load.time_s")["id"]);
}

TEST_CASE("kcidb export: --origin as KCIDB takes it, or exit 2 in one line", "[kcidb][e2e]") {
    CHECK_NOTHROW(check_kcidb_origin("my_lab2"));
    for (const std::string bad : {"My_Lab", "", "lab-1", "lab:x", "lab x"}) {
        INFO(bad);
        CHECK_THROWS_AS(check_kcidb_origin(bad), UsageError);
    }
    test::ScratchDir dir("kcidb-origin");
    const std::string files = fixture_dir().string();
    auto o = test::run_contest_binary({"export", "--origin", "My-Lab", files}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK(o.err ==
          "contest: contest export: --origin My-Lab: a KCIDB origin is lowercase letters, digits "
          "and _ (e.g. my_lab)\n");
    o = test::run_contest_binary({"export", files}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err ==
          "contest: contest export: give --origin NAME (your CI system's name in KCIDB)\n");
    o = test::run_contest_binary({"export", "--origin", "lab", "--format", "json", files},
                                 dir.path());
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    o = test::run_contest_binary({"export", "--origin", "my_lab", files}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(nlohmann::json::parse(o.out)["tests"].size() > 20);
}
