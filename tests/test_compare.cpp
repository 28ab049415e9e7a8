// `contest compare`: the focused view of two kernels, its verdicts, and the
// command's handling of labels and files.
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/report/format_compare.h"
#include "contest/report/formats.h"
#include "contest/report/report_model.h"
#include "contest/result/result_file.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

// Defined in test_report.cpp: the fixtures, the snapshot check and in-memory
// result files, shared by both files of the one test binary.
namespace contest::report_test {
fs::path fixture_dir();
std::vector<ResultFile> fixture_files();
void expect_snapshot(const std::string& name, const std::string& actual);
ResultFile make_result(const std::string& label,
                       const std::map<std::string, std::vector<double>>& walls);
std::vector<double> normal_sample(std::mt19937& gen, double mean, double sd, int n);
}  // namespace contest::report_test

using namespace contest::report_test;

namespace {

ReportModel compare_model(const std::vector<ResultFile>& files, const std::string& base) {
    ReportOptions options;
    options.baseline = base;
    options.print_warnings = false;
    return build_report_model(files, options);
}

std::vector<ResultFile> two_labels(const std::string& a, const std::string& b) {
    std::vector<ResultFile> out;
    for (const auto& f : fixture_files())
        if (f.label == a) out.push_back(f);
    for (const auto& f : fixture_files())
        if (f.label == b) out.push_back(f);
    return out;
}

}  // namespace

TEST_CASE("snapshot: compare", "[compare][snapshot]") {
    const auto model = compare_model(two_labels("6.1.0-hz100", "6.1.0-hz1000"), "6.1.0-hz100");
    const std::string out = format_compare(model);
    expect_snapshot("compare.txt", out);
    CHECK(out.find("process_load") != std::string::npos);
    CHECK(out.find("verdict: new is slower under process_load") != std::string::npos);
}

TEST_CASE("compare: the geometric mean is over the loads both ran", "[compare]") {
    const auto model = compare_model(two_labels("6.1.0-hz100", "6.1.0-hz1000"), "6.1.0-hz100");
    double log_sum = 0;
    for (const auto& block : model.blocks)
        log_sum += std::log(model.find_cell(block.load, "6.1.0-hz1000")->time.mean /
                            model.find_cell(block.load, "6.1.0-hz100")->time.mean);
    const double geo = std::exp(log_sum / 4);
    CHECK(format_compare(model).find("over 4 loads: " + fixed(geo, 3)) != std::string::npos);
}

TEST_CASE("compare: the verdict says plainly when nothing differs beyond noise", "[compare]") {
    std::mt19937 gen(7);
    const auto a = make_result("a", {{"no_load", normal_sample(gen, 50, 0.5, 6)},
                                     {"cpu_load", normal_sample(gen, 90, 1, 6)}});
    const auto b = make_result("b", {{"no_load", normal_sample(gen, 50, 0.5, 6)},
                                     {"cpu_load", normal_sample(gen, 90, 1, 6)}});
    const std::string out = format_compare(compare_model({a, b}, "a"));
    CHECK(out.find("verdict: no difference beyond noise under any load") != std::string::npos);
    CHECK(out.find("not significant") != std::string::npos);
    CHECK(out.find("Mann-Whitney") != std::string::npos);  // 6 runs a side
}

TEST_CASE("compare: too few runs cannot be judged", "[compare]") {
    const auto a = make_result("a", {{"no_load", {50, 51}}});
    const auto b = make_result("b", {{"no_load", {60, 61}}});
    const std::string out = format_compare(compare_model({a, b}, "a"));
    CHECK(out.find("not judged (2 vs 2 runs)") != std::string::npos);
    CHECK(out.find("verdict: too few runs to judge anything") != std::string::npos);
}

TEST_CASE("compare: faster and slower are told apart", "[compare]") {
    const auto a =
        make_result("a", {{"no_load", {50, 50.2, 49.9}}, {"cpu_load", {90, 90.5, 89.7}}});
    const auto b =
        make_result("b", {{"no_load", {55, 55.1, 54.8}}, {"cpu_load", {80, 80.3, 79.9}}});
    const std::string out = format_compare(compare_model({a, b}, "a"));
    CHECK(out.find("new is slower under no_load (+9.9%)") != std::string::npos);
    CHECK(out.find("new is faster under cpu_load (-11.1%)") != std::string::npos);
}

TEST_CASE("contest compare: labels under --results", "[compare][e2e]") {
    contest::test::ScratchDir dir("compare-labels");
    const fs::path svg = dir / "compare.svg";
    const auto o =
        contest::test::run_contest_binary({"compare", "--results", fixture_dir().string(), "--plot",
                                           svg.string(), "6.1.0-hz100", "6.1.0-hz1000"},
                                          dir.path());
    CHECK(o.exit_code == 0);
    expect_snapshot("compare.txt", o.out);
    CHECK(o.err.find("Time varies by") != std::string::npos);
    CHECK(contest::test::slurp(svg).find("6.1.0-hz1000") != std::string::npos);
}

TEST_CASE("contest compare: files, and two files of one label", "[compare][e2e]") {
    contest::test::ScratchDir dir("compare-files");
    const fs::path first = fixture_dir() / "6.1.0-hz1000" / "2024-05-02T090000Z.json";
    const fs::path second = fixture_dir() / "6.1.0-hz1000" / "2024-05-02T140000Z.json";
    auto o =
        contest::test::run_contest_binary({"compare", first.string(), second.string()}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(o.out.find("base: 6.1.0-hz1000 (base: 2024-05-02T090000Z.json)") != std::string::npos);

    o = contest::test::run_contest_binary({"compare", first.string(), first.string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("same result files") != std::string::npos);
}

TEST_CASE("contest compare: an unknown label is a usage error listing the labels",
          "[compare][e2e]") {
    contest::test::ScratchDir dir("compare-unknown");
    auto o = contest::test::run_contest_binary(
        {"compare", "--results", fixture_dir().string(), "6.1.0-hz100", "6.2.0"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("'6.2.0' is neither a result file nor a label") != std::string::npos);
    CHECK(o.err.find("6.1.0-rt") != std::string::npos);

    o = contest::test::run_contest_binary({"compare", "6.1.0-hz100"}, dir.path());
    CHECK(o.exit_code == 2);
}
