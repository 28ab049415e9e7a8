// The tests net of outside work in the report model and every format, on
// the committed vary-thp example: two THP settings compiled beside other
// builds that took 50 to 160% of a CPU, 5 rounds, where the raw paired
// test could see only changes of ±70% to ±140%.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/report/format_post.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using contest::report_test::expect_snapshot;

namespace {

const std::string kBase = "6.18.44-fc-v1045,thp=always";
const std::string kNew = "6.18.44-fc-v1045,thp=never";

std::vector<ResultFile> vary_thp() {
    std::vector<std::string> bad;
    auto files = read_result_paths(
        {fs::path(CONTEST_SOURCE_DIR) / "results" / "examples" / "vary-thp"}, bad);
    REQUIRE(bad.empty());
    REQUIRE(files.size() == 2);
    return files;
}

ReportOptions options_for(bool adjust) {
    ReportOptions o;
    o.baseline = kBase;
    o.print_warnings = false;
    o.adjust_outside = adjust;
    return o;
}

const VersusBaseline& versus(const ReportModel& m, const std::string& load) {
    const Cell* c = m.find_cell(load, kNew);
    REQUIRE(c);
    REQUIRE(c->versus);
    return *c->versus;
}

}  // namespace

TEST_CASE("outside work: the busy example's Time is adjusted, beside the raw verdict",
          "[outside]") {
    const auto model = build_report_model(vary_thp(), options_for(false));
    for (const char* load : {"no_load", "mem_load"}) {
        INFO(load);
        const auto& v = versus(model, load);
        REQUIRE(v.time_outside);
        CHECK(v.time_outside->applied);
        CHECK(v.time_outside->paired);
        CHECK(v.time_outside->uses_share);
        CHECK(v.time_outside->explained > 0.9);
        REQUIRE(v.time_test);
        REQUIRE(v.time_other);
        CHECK_FALSE(v.time_test->net_of_outside);
        CHECK(v.time_other->net_of_outside);
        // What the busy machine cost: the net test sees changes a fifth the size.
        CHECK(v.time_other->mde_pct < v.time_test->mde_pct / 5);
        CHECK(std::isfinite(v.time_other->p_adjusted));
        CHECK(std::fabs(v.time_other->effect_pct) < 5);
        // And how much of each label's spread was the outside work.
        const Cell* c = model.find_cell(load, kNew);
        REQUIRE(c->outside_spread);
        CHECK(c->outside_spread->explained > 0.8);
    }
    bool noted = false;
    for (const auto& n : model.notes) noted = noted || n.find("explains this much") != n.npos;
    CHECK(noted);
}

TEST_CASE("outside work: --adjust outside makes the net test the verdict of record", "[outside]") {
    const auto raw = build_report_model(vary_thp(), options_for(false));
    const auto net = build_report_model(vary_thp(), options_for(true));
    // The same hypotheses, so the same family and level on either basis.
    CHECK(net.family_size == raw.family_size);
    CHECK(net.detection_level == raw.detection_level);
    const auto& r = versus(raw, "no_load");
    const auto& n = versus(net, "no_load");
    REQUIRE(n.time_test);
    REQUIRE(n.time_other);
    CHECK(n.time_test->net_of_outside);
    CHECK_FALSE(n.time_other->net_of_outside);
    CHECK(n.time_test->p_adjusted == Approx(r.time_other->p_adjusted));
    CHECK(n.time_other->p_adjusted == Approx(r.time_test->p_adjusted));
    CHECK_THAT(format_compare(net), Catch::Contains("net of outside work):"));
}

TEST_CASE("outside work: a run without the outside work recorded leaves nothing to adjust",
          "[outside]") {
    auto files = vary_thp();
    files[0].runs[0].others_cpu_pct.reset();
    const auto model = build_report_model(files, options_for(false));
    CHECK_FALSE(versus(model, "no_load").time_outside);
    CHECK_FALSE(versus(model, "no_load").time_other);
}

TEST_CASE("snapshot: the formats with tests net of outside work", "[outside][snapshot]") {
    const auto files = vary_thp();
    const auto model = build_report_model(files, options_for(false));
    expect_snapshot("outside-compare.txt", format_compare(model, "text"));
    expect_snapshot("outside-compare.md", format_compare(model, "markdown"));
    expect_snapshot("outside-compare.csv", format_compare(model, "csv"));
    expect_snapshot("outside-compare.json", format_compare(model, "json"));
    expect_snapshot("outside-compare-adjusted.txt",
                    format_compare(build_report_model(files, options_for(true)), "text"));
    for (const char* format : {"text", "markdown", "csv", "html"}) {
        auto o = options_for(false);
        o.format = format;
        expect_snapshot(std::string("outside-report.") + (std::string(format) == "markdown" ? "md"
                                                          : std::string(format) == "text"   ? "txt"
                                                                                          : format),
                        render_report(files, o));
    }
    expect_snapshot("outside-post.txt", format_post(files, options_for(false)));
}

TEST_CASE("contest compare --adjust: outside makes the net verdict, anything else is one line",
          "[outside][e2e]") {
    contest::test::ScratchDir dir("outside-cli");
    const std::string results =
        (fs::path(CONTEST_SOURCE_DIR) / "results" / "examples" / "vary-thp").string();
    auto o = contest::test::run_contest_binary(
        {"compare", "--adjust", "outside", "--results", results, kBase, kNew}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("-1.9% net"));
    CHECK_THAT(o.out, Catch::Contains("net of outside work):"));
    o = contest::test::run_contest_binary(
        {"compare", "--adjust", "inside", "--results", results, kBase, kNew}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK_THAT(o.err, Catch::Contains("--adjust inside: expected none or outside"));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    // On contest run it is what --runs auto aims at, so it needs --runs auto.
    o = contest::test::run_contest_binary({"run", "--adjust", "outside", "-n", "1", "no_load"},
                                          dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--adjust needs --runs auto"));
}

namespace {

// vary-thp with the outside work of `load`'s first run on the new label
// unrecorded (a file from before contest recorded it): nothing to adjust
// that load's Time by, nor the Ratios that use its runs.
std::vector<ResultFile> unrecorded(std::initializer_list<const char*> loads) {
    auto files = vary_thp();
    for (auto& f : files)
        if (f.label == kNew)
            for (const char* load : loads)
                for (auto& r : f.runs)
                    if (r.load == load) {
                        r.others_cpu_pct.reset();
                        break;
                    }
    return files;
}

}  // namespace

TEST_CASE(
    "outside work under --adjust outside: a refusal is named in every format, and the verdict says "
    "where it "
    "stands raw",
    "[outside]") {
    const auto files = unrecorded({"no_load"});
    const auto model = build_report_model(files, options_for(true));
    const auto& v = versus(model, "no_load");
    REQUIRE(v.time_outside);
    CHECK_FALSE(v.time_outside->applied);
    const std::string why = "a run has no record of the outside work";
    CHECK_THAT(v.time_outside->why_not, Catch::Contains(why));
    REQUIRE(v.time_test);
    CHECK_FALSE(v.time_test->net_of_outside);
    CHECK(versus(model, "mem_load").time_test->net_of_outside);

    const std::string text = format_compare(model, "text");
    CHECK_THAT(text, Catch::Contains(why));
    CHECK_THAT(text, Catch::Contains("not adjusted; the raw test is the verdict"));
    // no_load has no Ratio against the baseline's; mem_load's uses no_load's runs.
    CHECK_THAT(text, Catch::Contains("net of outside work but raw under no_load Time, mem_load "
                                     "Ratio (not adjusted there"));
    CHECK_THAT(format_compare(model, "markdown"), Catch::Contains(why));
    CHECK_THAT(format_compare(model, "csv"), Catch::Contains(why));
    const std::string json = format_compare(model, "json");
    CHECK_THAT(json, Catch::Contains(why));
    CHECK_THAT(json, Catch::Contains("\"verdict_basis\": \"mixed\""));
    auto o = options_for(true);
    for (const char* format : {"text", "markdown", "html"}) {
        INFO(format);
        o.format = format;
        CHECK_THAT(render_report(files, o), Catch::Contains(why));
    }
    o.format = "json";
    CHECK_THAT(render_report(files, o), Catch::Contains("\"verdict_basis\": \"mixed\""));
    // (post wraps its lines at 72 columns)
    CHECK_THAT(format_post(files, options_for(true)),
               Catch::Contains("Time not net of outside work: a run has no record of"));
}

TEST_CASE(
    "outside work under --adjust outside: where it applies to nothing, the verdict says raw, not "
    "net",
    "[outside]") {
    const auto model = build_report_model(unrecorded({"no_load", "mem_load"}), options_for(true));
    const std::string text = format_compare(model, "text");
    // The block is printed though nothing was adjusted: it says why.
    CHECK_THAT(text, Catch::Contains("Raw, beside the verdict of record"));
    CHECK_THAT(text, Catch::Contains("a run has no record of the outside work"));
    const auto verdict = text.substr(text.rfind("verdict: "));
    CHECK_THAT(verdict, !Catch::Contains("net of outside work"));
    CHECK_THAT(verdict, Catch::Contains("raw: the outside-work adjustment applied to none"));
    CHECK_THAT(format_compare(model, "json"), Catch::Contains("\"verdict_basis\": \"raw\""));
}

TEST_CASE(
    "outside work under --adjust outside: where the outside work differs between the sides, no "
    "verdict",
    "[outside]") {
    // The new label's runs had 40% of a CPU less outside work than base's in
    // every round: the compared thing may be what took it.
    auto files = vary_thp();
    std::map<std::pair<std::string, int>, double> base_outside;
    for (const auto& f : files)
        if (f.label == kBase)
            for (const auto& r : f.runs) base_outside[{r.load, r.round}] = *r.others_cpu_pct;
    for (auto& f : files)
        if (f.label == kNew)
            for (auto& r : f.runs) {
                r.others_cpu_pct = base_outside.at({r.load, r.round}) - 40;
                r.steal_pct = 0;
            }
    for (auto& f : files)
        for (auto& r : f.runs) r.steal_pct = 0;
    const auto model = build_report_model(files, options_for(true));
    const auto& v = versus(model, "no_load");
    REQUIRE(v.time_outside);
    CHECK(v.time_outside->sides_differ);
    REQUIRE(v.time_test);
    CHECK_THAT(v.time_test->withheld, Catch::Contains("the outside work differs"));
    CHECK_FALSE(v.significant);
    const std::string text = format_compare(model, "text");
    CHECK_THAT(text, Catch::Contains("not judged: the outside work differs"));
    CHECK_THAT(text, Catch::Contains("verdict: not judged under no_load"));
    CHECK_THAT(format_compare(model, "json"), Catch::Contains("\"verdict_withheld\": ["));
    // Without --adjust outside the raw test is the verdict, as ever.
    const auto raw = build_report_model(files, options_for(false));
    CHECK(versus(raw, "no_load").time_test->withheld.empty());
}

TEST_CASE("outside work: a round run twice pairs its last run, in the raw test and the net alike",
          "[outside]") {
    // The new label's no_load round 1 again, later in its file (a --resume
    // that ran it again), slower and under other outside work.
    auto twice = vary_thp();
    auto replaced = twice;
    for (auto* files : {&twice, &replaced})
        for (auto& f : *files)
            if (f.label == kNew)
                for (std::size_t i = 0; i < f.runs.size(); ++i)
                    if (f.runs[i].load == "no_load" && f.runs[i].round == 1) {
                        RunRecord again = f.runs[i];
                        again.wall_s *= 1.3;
                        again.others_cpu_pct = *again.others_cpu_pct - 30;
                        if (files == &twice) {
                            f.runs.push_back(again);
                        } else {
                            f.runs[i] = again;
                        }
                        break;
                    }
    for (bool adjust : {false, true}) {
        INFO("adjust " << adjust);
        const auto a = build_report_model(twice, options_for(adjust));
        const auto b = build_report_model(replaced, options_for(adjust));
        const auto &va = versus(a, "no_load"), &vb = versus(b, "no_load");
        REQUIRE(va.time_test);
        REQUIRE(vb.time_test);
        CHECK_THAT(va.time_test->method, Catch::Contains("(5 shared rounds)"));
        CHECK(va.time_test->p == Approx(vb.time_test->p));
        REQUIRE(va.time_outside);
        CHECK(va.time_outside->observations == 5);
        CHECK(va.time_outside->raw_sd == Approx(vb.time_outside->raw_sd));
        // The load effect pairs by file and round the same way.
        const Cell* ca = a.find_cell("mem_load", kNew);
        const Cell* cb = b.find_cell("mem_load", kNew);
        REQUIRE(ca->ratio_estimate);
        CHECK(ca->ratio_estimate->pairs == 5);
        CHECK(*ca->ratio == Approx(*cb->ratio));
        REQUIRE(ca->ratio_estimate->outside);
        CHECK(ca->ratio_estimate->outside->raw_sd == Approx(cb->ratio_estimate->outside->raw_sd));
    }
}
