// `contest compare`: the focused view of two kernels, its verdicts, and the
// command's handling of labels and files.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/report/format_compare.h"
#include "contest/report/formats.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

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

namespace {

// Two labels of one --vary run: the runs of both carry its group, and run i
// of each load ran in round i.
ResultFile in_vary_group(const std::string& label,
                         const std::map<std::string, std::vector<double>>& walls) {
    ResultFile f = make_result(label, walls);
    f.config = {{"order", "shuffled"}, {"vary", {{"group", "g1"}}}};
    for (auto& r : f.runs) r.round = r.index;
    return f;
}

std::string header_line(const std::string& compare_text) {
    const auto start = compare_text.find("\nTime: ");
    REQUIRE(start != std::string::npos);
    return compare_text.substr(start + 1, compare_text.find('\n', start + 1) - start - 1);
}

std::string report_as(const std::vector<ResultFile>& files, const std::string& format) {
    ReportOptions options;
    options.format = format;
    options.print_warnings = false;
    return render_report(files, options);
}

}  // namespace

TEST_CASE("compare and report name the paired test where labels share --vary rounds", "[compare]") {
    const std::vector<ResultFile> files = {
        in_vary_group("a", {{"no_load", {50, 52, 51, 53, 50.5, 52.5}},
                            {"io_load", {70, 73, 71, 74, 70.4, 73.3}}}),
        in_vary_group("b", {{"no_load", {51, 53.1, 52, 54, 51.6, 53.4}},
                            {"io_load", {71.5, 74.3, 72.6, 75.4, 71.7, 74.9}}})};
    const ReportModel model = compare_model(files, "a");
    for (const auto& block : model.blocks) {
        const Cell* b = model.find_cell(block.load, "b");
        REQUIRE(b->versus);
        REQUIRE(b->versus->time_test);
        REQUIRE(b->versus->time_test->method.starts_with("paired t"));
    }
    const std::string text = format_compare(model, "text");
    INFO(text);
    CHECK(header_line(text).find("p: paired t on per-round log differences") != std::string::npos);
    CHECK(text.find("Welch") == std::string::npos);  // no row used it
    const std::string markdown = report_as(files, "markdown");
    INFO(markdown);
    CHECK(markdown.find("Change and p-adj (paired t on per-round log differences") !=
          std::string::npos);
    CHECK(markdown.find("Welch") == std::string::npos);
    const auto json = nlohmann::json::parse(report_as(files, "json"));
    const std::string named = json.at("significance_test");
    CHECK(named.starts_with("Time: paired t on per-round log differences"));
    CHECK(named.find("Welch") == std::string::npos);
}

TEST_CASE("compare and report name Mann-Whitney's U where timed-out runs made it the test",
          "[compare]") {
    ResultFile a = make_result("a", {{"no_load", {50, 50.5, 49.5, 50.2, 49.8, 50.1}},
                                     {"io_load", {130, 131, 129, 130, 130.5, 129.5}}});
    ResultFile b = make_result("b", {{"no_load", {50.1, 50.4, 49.6, 50.3, 49.9, 50}},
                                     {"io_load", {132, 133, 131, 132.5, 0, 0}}});
    for (auto& r : b.runs)
        if (r.load == "io_load" && r.wall_s == 0) r.status = RunStatus::timed_out;
    const ReportModel model = compare_model({a, b}, "a");
    REQUIRE(model.find_cell("io_load", "b")->versus->time_test);
    REQUIRE(model.find_cell("io_load", "b")->versus->time_test->method.starts_with("Mann-Whitney"));
    REQUIRE(model.find_cell("no_load", "b")->versus->time_test->method == "Welch t");
    const std::string header = header_line(format_compare(model, "text"));
    INFO(header);
    CHECK(header.find("p: Welch's t-test under no_load; Mann-Whitney U (timed-out runs slowest) "
                      "under io_load, adjusted") != std::string::npos);
    const std::string markdown = report_as({a, b}, "markdown");
    INFO(markdown);
    CHECK(markdown.find("Change and p-adj (Welch's t-test under no_load; Mann-Whitney U "
                        "(timed-out runs slowest) under io_load, adjusted") != std::string::npos);
    const auto json = nlohmann::json::parse(report_as({a, b}, "json"));
    CHECK(
        json.at("significance_test")
            .get<std::string>()
            .starts_with(
                "Time: Welch's t-test under no_load; Mann-Whitney U (timed-out runs slowest) under "
                "io_load;"));
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

namespace {

// A result file written under dir/<name>.json from in-memory runs, in rounds.
fs::path write_fixture(const fs::path& dir, const std::string& name, ResultFile f) {
    f.config["order"] = "rounds";
    if (f.started_at.empty()) f.started_at = "2026-01-01T00:00:00Z";
    if (f.system.is_null())
        f.system = {{"hostname", "box"}, {"cpu_model", "X"}, {"cpus_online", 2}};
    const fs::path path = dir / (name + ".json");
    fs::create_directories(dir);
    std::ofstream(path) << to_json(f).dump(2);
    return path;
}

// No "nan" or "inf" as a word (a figure), in any case.
bool has_non_finite(const std::string& text) {
    std::string word;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : ' ';
        if (std::isalpha(static_cast<unsigned char>(c))) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            continue;
        }
        if (word == "nan" || word == "inf" || word == "infinity") return true;
        word.clear();
    }
    return false;
}

// Every format of report and compare over `dir`: none exits 3 (the
// environment) or prints a non-finite figure. Returns compare's text output.
std::string check_every_format(const fs::path& dir, const std::string& base,
                               const std::string& fresh) {
    contest::test::ScratchDir cwd("formats");
    for (const char* format : {"text", "markdown", "csv", "json"}) {
        auto o = contest::test::run_contest_binary(
            {"report", "--stats", "--format", format, dir.string()}, cwd.path());
        INFO("report --format " << format << "\n" << o.out << o.err);
        CHECK(o.exit_code == 0);
        CHECK_FALSE(has_non_finite(o.out));
        o = contest::test::run_contest_binary(
            {"compare", "--results", dir.string(), "--format", format, base, fresh}, cwd.path());
        INFO("compare --format " << format << "\n" << o.out << o.err);
        CHECK(o.exit_code == 0);
        CHECK_FALSE(has_non_finite(o.out));
    }
    return contest::test::run_contest_binary({"compare", "--results", dir.string(), base, fresh},
                                             cwd.path())
        .out;
}

ResultFile with_failures(const std::string& label, const std::vector<double>& walls,
                         const std::vector<std::string>& statuses) {
    ResultFile f = make_result(
        label, {{"no_load", {100, 100.5, 99.5, 100.2, 99.8, 100.1}}, {"io_load", walls}});
    int k = 0;
    for (auto& r : f.runs)
        if (r.load == "io_load") r.status = *contest::run_status_from_name(statuses[k++]);
    return f;
}

}  // namespace

TEST_CASE("fixtures: failed and timed-out runs are named, never 'the same'", "[compare][e2e]") {
    contest::test::ScratchDir dir("fixture-failed");
    write_fixture(dir / "ok", "a",
                  with_failures("ok", {130, 131, 129, 130, 130.5, 129.5},
                                {"ok", "ok", "ok", "ok", "ok", "ok"}));
    write_fixture(dir / "flaky", "b",
                  with_failures("flaky", {130, 131, 129, 0, 0, 0},
                                {"ok", "ok", "ok", "workload_failed", "load_failed", "timed_out"}));
    const std::string out = check_every_format(dir.path(), "ok", "flaky");
    CHECK(out.find("3+3F") != std::string::npos);
    CHECK(out.find("runs failed under io_load (new 3 of 6 runs failed (1 timed out))") !=
          std::string::npos);
    CHECK(out.find("perform the same") == std::string::npos);
}

TEST_CASE("fixtures: numerical noise is not a difference", "[compare][e2e]") {
    contest::test::ScratchDir dir("fixture-noise");
    write_fixture(dir / "a", "a",
                  make_result("a", {{"no_load", {120.00, 120.00, 120.00, 120.00, 120.00}}}));
    write_fixture(dir / "b", "b",
                  make_result("b", {{"no_load", {120.01, 120.01, 120.01, 120.01, 120.01}}}));
    const std::string out = check_every_format(dir.path(), "a", "b");
    CHECK(out.find("slower") == std::string::npos);
    CHECK(out.find("not significant (below 1%)") != std::string::npos);
}

TEST_CASE("fixtures: one label from two machines is named, --by-host separates it",
          "[compare][e2e]") {
    contest::test::ScratchDir dir("fixture-hosts");
    ResultFile one = make_result("k", {{"no_load", {100, 101, 99}}});
    one.system = {{"hostname", "small"}, {"cpu_model", "A"}, {"cpus_online", 2}};
    ResultFile two = make_result("k", {{"no_load", {50, 51, 49}}});
    two.system = {{"hostname", "big"}, {"cpu_model", "B"}, {"cpus_online", 8}};
    write_fixture(dir / "k", "one", one);
    write_fixture(dir / "k", "two", two);
    write_fixture(dir / "base", "base", make_result("base", {{"no_load", {100, 101, 99}}}));
    check_every_format(dir.path(), "base", "k");
    contest::test::ScratchDir cwd("hosts");
    auto o = contest::test::run_contest_binary({"report", dir.path().string()}, cwd.path());
    CHECK(o.err.find("k: its files come from different machines (system.cpu_model 'A' vs 'B'") !=
          std::string::npos);
    CHECK(o.err.find("system.cpus_online") != std::string::npos);
    o = contest::test::run_contest_binary({"report", "--by-host", dir.path().string()}, cwd.path());
    CHECK(o.out.find("k@small") != std::string::npos);
    CHECK(o.out.find("k@big") != std::string::npos);
}

TEST_CASE("fixtures: huge and overflowing numbers", "[compare][e2e]") {
    contest::test::ScratchDir dir("fixture-huge");
    write_fixture(dir / "a", "a", make_result("a", {{"no_load", {100, 101, 99}}}));
    write_fixture(dir / "b", "b", make_result("b", {{"no_load", {1e308, 1.5e308, 99}}}));
    check_every_format(dir.path(), "a", "b");
    // 1e400 is beyond a double: that file is skipped, named, with the reason.
    std::ofstream(dir / "a" / "overflow.json")
        << R"({"schema_version": 1, "label": "a", "runs": [{"load": "no_load", "index": 1,
              "status": "ok", "wall_s": 1e400}]})";
    contest::test::ScratchDir cwd("huge");
    const auto o = contest::test::run_contest_binary({"report", dir.path().string()}, cwd.path());
    CHECK(o.exit_code == 0);
    CHECK(o.err.find("skipping") != std::string::npos);
    CHECK(o.err.find("overflow.json") != std::string::npos);
    CHECK(o.err.find("overflow") != std::string::npos);
}

TEST_CASE("fixtures: a load that did not load gets a note, wide labels", "[compare][e2e]") {
    contest::test::ScratchDir dir("fixture-flat");
    for (const char* label : {"mq-deadline", "调度器"})
        write_fixture(dir / label, "r",
                      make_result(label, {{"no_load", {100, 101, 99, 100.5}},
                                          {"io_load", {98, 99, 97, 98.5}}}));
    const std::string out = check_every_format(dir.path(), "mq-deadline", "调度器");
    CHECK(out.find("io_load did not load the workload: Ratio 0.98") != std::string::npos);
}
