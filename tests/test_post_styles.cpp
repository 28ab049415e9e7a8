// contest post --style lkp and --style normalized (and compare --format of
// the same names): snapshots of both over the committed examples, the same
// verdicts as contest's own post, the beyond-noise marks, the percentiles in
// schbench's order, the 76-column promise, and a bad --style refused.
#include <algorithm>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/report_model.h"
#include "contest/report/compare_view.h"
#include "contest/report/format_compare.h"
#include "contest/report/format_post.h"
#include "contest/report/formats.h"
#include "contest/report/kcidb_export.h"
#include "contest/report/outputs.h"
#include "contest/result/result_file.h"
#include "contest/sys/text.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using namespace contest::report_test;

namespace {

const fs::path kStyleExamples = fs::path(CONTEST_SOURCE_DIR) / "results" / "examples";

// The committed --kernel example: generic against rt, under TCG, with the
// cyclic probe's percentiles.
std::vector<ResultFile> kernels_example() {
    std::vector<std::string> bad;
    auto files = read_result_paths({kStyleExamples / "kernels-tcg"}, bad);
    REQUIRE(bad.empty());
    REQUIRE(files.size() == 2);
    return files;
}

ReportOptions styled_against(const std::string& baseline) {
    ReportOptions o;
    o.baseline = baseline;
    o.print_warnings = false;
    return o;
}

// Every verdict contest's own post gives, given word for word.
void check_same_verdicts(const std::vector<ResultFile>& files, const ReportOptions& o,
                         const std::string& shaped, bool ascii) {
    const ReportModel model = build_report_model(files, o);
    int verdicts = 0;
    for (const auto& l : model.labels) {
        if (l.label == model.baseline) continue;
        const std::string verdict = compare_view(model, model.baseline, l.label).verdict;
        const std::string in_ascii = std::regex_replace(verdict, std::regex("±"), "+-");
        INFO(verdict);
        CHECK(test::unwrapped(shaped).find("Verdict: " + (ascii ? in_ascii : verdict)) !=
              std::string::npos);
        CHECK(test::unwrapped(format_post(files, o)).find("Verdict: " + in_ascii) !=
              std::string::npos);
        ++verdicts;
    }
    CHECK(verdicts == static_cast<int>(model.labels.size()) - 1);
}

}  // namespace

TEST_CASE("snapshot: post --style lkp of the committed --kernel example", "[post][snapshot][lkp]") {
    const auto files = kernels_example();
    const std::string post = format_post(files, styled_against("generic"), PostStyle::lkp);
    expect_snapshot("lkp-post.txt", post);
    check_mail_lines(post);
    check_same_verdicts(files, styled_against("generic"), post, false);
    CHECK(post.find("\ngeneric          rt\n---------------- ---------------------------\n"
                    "         %stddev     %change         %stddev\n") != std::string::npos);
    // A row a measure, the runs' CV beside each side's figure.
    CHECK(std::regex_search(post, std::regex(R"(\n +[0-9.]+ ± +[0-9]+% +[-+][0-9.]+% +[0-9.]+ ± +)"
                                             R"([0-9]+% +no_load\.time_s\n)")));
    // The percentiles in schbench's order, then the missed periods.
    const auto at = [&](const std::string& what) { return post.find(what); };
    CHECK(at("cpu_load.cyclic.50.0th_us") < at("cpu_load.cyclic.90.0th_us"));
    CHECK(at("cpu_load.cyclic.90.0th_us") < at("cpu_load.cyclic.99.0th_us"));
    CHECK(at("cpu_load.cyclic.99.0th_us") < at("cpu_load.cyclic.99.9th_us"));
    CHECK(at("cpu_load.cyclic.99.9th_us") < at("cpu_load.cyclic.missed_pct"));
    CHECK(test::unwrapped(post).find("lower is better: time_s,") != std::string::npos);
    CHECK(test::unwrapped(post).find("higher is better: loads") != std::string::npos);
}

TEST_CASE("snapshot: post --style normalized of the committed --kernel example",
          "[post][snapshot][normalized]") {
    const auto files = kernels_example();
    const std::string post = format_post(files, styled_against("generic"), PostStyle::normalized);
    expect_snapshot("normalized-post.txt", post);
    check_mail_lines(post);
    check_same_verdicts(files, styled_against("generic"), post, true);
    CHECK(post.find("Test          : Time (the workload's wall time)\n"
                    "Units         : Normalized seconds (the baseline's = 1.00)\n"
                    "Interpretation: Lower is better\nStatistic     : GMean of the per-round "
                    "ratios\n") != std::string::npos);
    CHECK(post.find("Interpretation: Higher is better") != std::string::npos);  // Loads
    CHECK(
        std::regex_search(post, std::regex(R"(\nno_load +1\.00 \[ -0\.00\]\( *[0-9.]+\) +\| )"
                                           R"([0-9]\.[0-9]{2} \[ *[-+]?[0-9.]+\]\( *[0-9.]+\))")));
    CHECK(std::regex_search(post, std::regex(R"(\ncpu_load rt: 50\.0th: [0-9]+ \| 90\.0th: [0-9]+ )"
                                             R"(\| 99\.0th: [0-9]+ \| 99\.9th: [0-9]+\n)")));
}

TEST_CASE("post styles keep the marks: beyond noise and not judged", "[post][lkp][normalized]") {
    const auto files = fixture_files();
    const ReportOptions o = styled_against("6.1.0-hz100");
    const std::string lkp = format_post(files, o, PostStyle::lkp);
    check_mail_lines(lkp);
    check_same_verdicts(files, o, lkp, false);
    // 6.1.0-hz1000 is slower under process_load beyond noise; 6.1.0-rt has
    // two runs a load, too few to judge.
    CHECK(std::regex_search(lkp, std::regex(R"(\+6\.9%.*  \* process_load\.time_s\n)")));
    CHECK(std::regex_search(lkp, std::regex(R"(  \? no_load\.time_s\n)")));
    CHECK(std::regex_search(lkp, std::regex(R"(   cpu_load\.time_s\n)")));  // judged, no change
    const std::string normalized = format_post(files, o, PostStyle::normalized);
    check_mail_lines(normalized);
    check_same_verdicts(files, o, normalized, true);
    CHECK(std::regex_search(
        normalized, std::regex(R"(\nprocess_load +1\.00 \[ -0\.00\].*1\.07 \[ -6\.91\].* \*\n)")));
    // Three labels: the third gets its own columns beside the baseline again.
    CHECK(normalized.find("6.1.0-rt[pct imp](CV)") != std::string::npos);
}

TEST_CASE("post --style normalized: a label without a probe the others ran gets '-' there",
          "[post][normalized]") {
    // Three labels, the third's runs without their latency: its columns in
    // the probe's blocks are empty, the others' are whole.
    auto files = kernels_example();
    ResultFile third = files.back();
    third.label = "rt_nolat";
    for (auto& run : third.runs) run.latency = nullptr;
    files.push_back(third);
    const std::string post = format_post(files, styled_against("generic"), PostStyle::normalized);
    check_mail_lines(post);
    CHECK(post.find("rt_nolat[pct imp](CV)") != std::string::npos);
    CHECK(std::regex_search(post, std::regex(R"(\ncpu_load rt: 50\.0th: [0-9]+ \| 90\.0th: )")));
    CHECK(std::regex_search(post, std::regex(R"(\ncpu_load generic: 50\.0th: [0-9]+ \| )")));
    CHECK(post.find("cpu_load rt_nolat:") == std::string::npos);
    // Also when the label without the probe comes first after the baseline.
    std::swap(files[1], files[2]);
    const std::string swapped =
        format_post(files, styled_against("generic"), PostStyle::normalized);
    CHECK(std::regex_search(swapped, std::regex(R"(\ncpu_load generic: 50\.0th: [0-9]+ \| )")));
}

TEST_CASE("post styles: labels of 40 characters are shortened, lines stay within 76",
          "[post][lkp][normalized]") {
    std::mt19937 gen(11);
    std::vector<ResultFile> files;
    for (const std::string& label : {std::string(40, 'a'), "b" + std::string(39, 'x')})
        files.push_back(make_result(label, {{"no_load", normal_sample(gen, 30, 0.2, 5)},
                                            {"cpu_load", normal_sample(gen, 60, 0.3, 5)}}));
    for (const PostStyle style : {PostStyle::lkp, PostStyle::normalized}) {
        const std::string post = format_post(files, styled_against(files[0].label), style);
        INFO(post);
        check_mail_lines(post);
        CHECK(post.find("Labels, shortened in this mail:\n  A = " + files[0].label) !=
              std::string::npos);
    }
}

TEST_CASE("post --style lkp: a row too wide keeps its columns, its name goes under it",
          "[post][lkp]") {
    std::mt19937 gen(5);
    const std::string load = "my_own_load_with_a_name_long_enough_to_overflow";
    std::vector<ResultFile> files;
    for (const std::string& label : {std::string("base"), std::string("new")})
        files.push_back(make_result(label, {{"no_load", normal_sample(gen, 30, 0.2, 5)},
                                            {load, normal_sample(gen, 60, 0.3, 5)}}));
    const std::string post = format_post(files, styled_against("base"), PostStyle::lkp);
    check_mail_lines(post);
    // The row's first line holds its columns where every other row has them.
    const auto lines = split_lines(post);
    const auto name_at = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
        return l.ends_with(" " + load + ".time_s");
    });
    const auto no_load_at = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
        return l.ends_with(" no_load.time_s");
    });
    REQUIRE(name_at != lines.end());
    REQUIRE(name_at != lines.begin());
    REQUIRE(no_load_at != lines.end());
    const std::string& row = *(name_at - 1);
    INFO(row << "\n" << *no_load_at);
    CHECK(row.find("±") == no_load_at->find("±"));
    CHECK(row.rfind("±") == no_load_at->rfind("±"));
    CHECK(name_at->find_first_not_of(' ') > 4);  // under the row, not a row of its own
}

TEST_CASE("compare --format normalized keeps a table's rows whole when labels are long",
          "[post][normalized]") {
    std::vector<std::string> bad;
    const auto files =
        read_result_paths({kStyleExamples / "vary-iosched"}, bad);  // 6.18.44-fc-v669,iosched=...
    REQUIRE(files.size() == 2);
    ReportOptions o = styled_against("6.18.44-fc-v669,iosched=mq-deadline");
    const std::string out = format_compare(build_report_model(files, o), "normalized");
    // Aligned as a table (a row broken at words would lose its padding).
    CHECK(std::regex_search(
        out, std::regex(R"(\nno_load +1\.00 \[ -0\.00\]\( *[0-9.]+\) {3}\| {3,})"
                        R"([0-9]\.[0-9]{2} \[ *[-+]?[0-9.]+\]\( *[0-9.]+\)( [*?])?\n)")));
}

TEST_CASE("post styles of one label say there is nothing to judge", "[post][lkp][normalized]") {
    std::mt19937 gen(3);
    const std::vector<ResultFile> files = {
        make_result("only", {{"no_load", normal_sample(gen, 30, 0.2, 3)}})};
    for (const PostStyle style : {PostStyle::lkp, PostStyle::normalized}) {
        const std::string post = format_post(files, styled_against("only"), style);
        CHECK(post.find("One label: nothing to judge against a baseline") != std::string::npos);
        check_mail_lines(post);
    }
}

TEST_CASE("compare --format lkp and normalized, report refuses them, a bad --style",
          "[post][lkp][normalized][e2e]") {
    test::ScratchDir dir("post-styles");
    const std::string generic = (kStyleExamples / "kernels-tcg" / "generic").string();
    const std::string rt = (kStyleExamples / "kernels-tcg" / "rt").string();
    auto o = test::run_contest_binary({"compare", "--format", "lkp", generic, rt}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(o.out.starts_with("*** EMULATED TIMES: "));
    CHECK(o.out.find("  Verdict: no difference beyond noise") != std::string::npos);
    o = test::run_contest_binary({"compare", "-f", "normalized", generic, rt}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(o.out.find("Interpretation: Lower is better") != std::string::npos);

    o = test::run_contest_binary({"report", "--format", "lkp", generic}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(
        o.err ==
        "contest: contest report: --format lkp: a comparison's shape, for contest compare (report: "
        "text, markdown, csv, json or html)\n");
    o = test::run_contest_binary({"post", "--style", "fancy", generic, rt}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.out.empty());
    CHECK(o.err.find("--style") != std::string::npos);
    CHECK(o.err.find("contest, lkp or normalized") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

namespace {

// lkp's %change column of the row ending in `path`: "+27.5%", "-3.3".
std::string lkp_change(const std::string& post, const std::string& path) {
    for (const auto& line : split_lines(post))
        if (line.ends_with(" " + path)) {
            std::string cell = line.substr(17, 11);
            return cell.substr(cell.find_first_not_of(' '));
        }
    return "no row " + path;
}

// normalized's cell of `label`'s column on the row of `case_name` in the
// block whose Test line starts with `test`: "1.28 [-27.51](22.13) *".
std::string normalized_cell(const std::string& post, const std::string& test,
                            const std::string& case_name, std::size_t column) {
    const auto block = post.find("Test          : " + test);
    if (block == std::string::npos) return "no block " + test;
    const auto row = post.find("\n" + case_name + " ", block);
    if (row == std::string::npos) return "no row " + case_name;
    std::string line = post.substr(row + 1, post.find('\n', row + 1) - row - 1);
    for (std::size_t i = 0; i < column; ++i) line = line.substr(line.find(" | ") + 3);
    line = line.substr(0, line.find(" | "));
    return line.substr(line.find_first_not_of(' '));
}

std::string kcidb_change(const std::vector<ResultFile>& files, const std::string& baseline,
                         const std::string& label, const std::string& path) {
    ReportOptions o = styled_against(baseline);
    KcidbOptions k;
    k.origin = "contest_ci";
    k.judged = true;
    const auto submission = kcidb_submission(files, build_report_model(files, o), k);
    for (const auto& t : submission["tests"])
        if (t["misc"]["label"] == label && t["path"] == path)
            return fixed(t["misc"]["against"]["change_pct"].get<double>(), 2);
    return "no test " + path;
}

}  // namespace

TEST_CASE("post shapes and KCIDB state one change of a figure, the test's where it has one",
          "[post][lkp][normalized][kcidb]") {
    // The --kernel example, paired by round: Time's change is its paired
    // test's (the per-round ratios' geometric mean), +27.51%, not the means'
    // +29.39%; missed% in points in every shape.
    const auto files = kernels_example();
    const ReportOptions o = styled_against("generic");
    const ReportModel model = build_report_model(files, o);
    const Cell* rt = model.find_cell("no_load", "rt");
    REQUIRE(rt);
    REQUIRE(rt->versus->time_test);
    const double time_effect = rt->versus->time_test->effect_pct;
    REQUIRE(time_effect == Approx(27.51).margin(0.01));
    const LatencyRow* missed = nullptr;
    for (const auto& row : model.blocks.front().latency)
        if (row.label == "rt") missed = &row;
    REQUIRE(missed);
    REQUIRE(missed->missed_test);
    const double missed_effect = missed->missed_test->effect_pct;

    const std::string lkp = format_post(files, o, PostStyle::lkp);
    const std::string normalized = format_post(files, o, PostStyle::normalized);
    CHECK(lkp_change(lkp, "no_load.time_s") == signed_percent(time_effect));
    CHECK(kcidb_change(files, "generic", "rt", "contest.no_load.time_s") == fixed(time_effect, 2));
    const std::string time_cell = normalized_cell(normalized, "Time", "no_load", 1);
    CHECK(time_cell.starts_with(fixed(1 + time_effect / 100, 2) + " [" + fixed(-time_effect, 2) +
                                "]"));
    // missed%: a difference in points, the same in each.
    CHECK(lkp_change(lkp, "no_load.cyclic.missed_pct") ==
          (missed_effect >= 0 ? "+" : "") + fixed(missed_effect, 1));
    CHECK(kcidb_change(files, "generic", "rt", "contest.no_load.cyclic.missed_pct") ==
          fixed(missed_effect, 2));
    const std::string missed_cell =
        normalized_cell(normalized, "cyclic latency, missed periods", "no_load", 1);
    INFO(missed_cell);
    CHECK(missed_cell.find(
              "[" + right_aligned((missed_effect <= 0 ? "+" : "") + fixed(-missed_effect, 2), 6) +
              "]") != std::string::npos);
    CHECK(missed_cell.starts_with(fixed(missed->missed_pct, 2) + " "));
}

TEST_CASE("post --style normalized keeps the mark of a change from a 0% baseline",
          "[post][normalized]") {
    // No period missed on base; about 5% on new, every run: beyond noise.
    std::vector<ResultFile> files;
    for (const std::string label : {"base", "new"}) {
        ResultFile f = make_result(label, {{"no_load", {10, 10.1, 9.9, 10.05}}});
        int i = 0;
        for (auto& r : f.runs) {
            const std::uint64_t missed = label == "base" ? 0 : 50 + 2 * static_cast<unsigned>(i++);
            r.latency = {
                {"cyclic",
                 {{"missed_pct", 100.0 * static_cast<double>(missed) / 1000},
                  {"latency",
                   {{"samples", 1000},
                    {"periods", 1000},
                    {"missed", missed},
                    {"min_ns", 1000},
                    {"max_ns", 90000},
                    {"percentiles_ns", {{"50.00", 2000}, {"99.00", 30000}, {"99.90", 60000}}}}}}}};
        }
        files.push_back(f);
    }
    const std::string normalized =
        format_post(files, styled_against("base"), PostStyle::normalized);
    const std::string cell =
        normalized_cell(normalized, "cyclic latency, missed periods", "no_load", 1);
    INFO(normalized);
    CHECK(cell.ends_with(" *"));
    CHECK(lkp_change(format_post(files, styled_against("base"), PostStyle::lkp),
                     "no_load.cyclic.missed_pct") == "+5.3");
}
