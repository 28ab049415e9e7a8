// The report: the model's numbers, its warnings, every exporter against
// snapshots of the fixed result files in tests/data/results, and the
// significance marks on simulated kernels.
//
// Snapshots live in tests/data/snapshots; CONTEST_UPDATE_SNAPSHOTS=1 rewrites
// them from the current output (then review the diff before committing).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/report/formats.h"
#include "contest/report/plot_svg.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "loads/registry.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;

using namespace contest::report_test;

namespace {

ReportOptions quiet(const std::string& format = "text") {
    ReportOptions o;
    o.format = format;
    o.print_warnings = false;
    return o;
}

bool has_warning(const ReportModel& model, const std::string& part) {
    for (const auto& w : model.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

// The Ratio cell of `label`'s row in the text table's block for `load`.
std::string text_ratio(const std::string& table, const std::string& load,
                       const std::string& label) {
    const auto lines = split_lines(table);
    std::size_t ratio_end = 0;
    bool in_block = false;
    for (const auto& line : lines) {
        if (line.ends_with(':') && line.find(' ') == std::string::npos) {
            in_block = line == load + ":";
            continue;
        }
        if (!in_block) continue;
        if (line.starts_with("Kernel")) {
            ratio_end = line.find("Ratio") + 5;
            continue;
        }
        if (line.starts_with(label + " ")) {
            const std::size_t start = line.find_last_of(' ', ratio_end - 1) + 1;
            return line.substr(start, ratio_end - start);
        }
    }
    return "";
}

}  // namespace

TEST_CASE("runs of one label pool across files, failed runs are left out", "[report]") {
    const auto files = fixture_files();
    const ReportModel model = build_report_model(files, quiet());
    REQUIRE(model.labels.size() == 3);
    CHECK(model.baseline == "6.1.0-hz100");  // the first label read
    CHECK(model.labels[1].files.size() == 2);

    const Cell* cell = model.find_cell("process_load", "6.1.0-hz1000");
    REQUIRE(cell);
    CHECK(cell->runs.size() == 5);
    CHECK(cell->failed == 1);
    CHECK(cell->time.n == 4);
    double sum = 0;
    int n = 0;
    for (const auto& f : files)
        if (f.label == "6.1.0-hz1000")
            for (const auto& r : f.runs)
                if (r.load == "process_load" && r.ok()) sum += r.wall_s, ++n;
    CHECK(cell->time.mean == Approx(sum / n));
    CHECK(has_warning(model, "6.1.0-hz1000 under process_load: 1 of 5 runs did not finish ok"));
}

TEST_CASE("blocks follow contest's order, unknown loads go last", "[report]") {
    const auto f = make_result("k", {{"zz_future_load", {5, 5.1, 5.2}},
                                     {"cpu_load", {20, 21, 22}},
                                     {"no_load", {10, 10.1, 10.2}},
                                     {"process_load", {15, 15.2, 15.1}}});
    const ReportModel model = build_report_model({f}, quiet());
    std::vector<std::string> order;
    for (const auto& b : model.blocks) order.push_back(b.load);
    CHECK(order ==
          std::vector<std::string>{"no_load", "process_load", "cpu_load", "zz_future_load"});
}

TEST_CASE("Ratio is over the label's own no_load, and '-' without one", "[report]") {
    const auto with = make_result("a", {{"no_load", {10, 10, 10}}, {"cpu_load", {25, 25, 25}}});
    const auto without = make_result("b", {{"cpu_load", {30, 30, 30}}});
    const ReportModel model = build_report_model({with, without}, quiet());
    REQUIRE(model.find_cell("cpu_load", "a")->ratio);
    CHECK(*model.find_cell("cpu_load", "a")->ratio == Approx(2.5));
    CHECK(model.find_cell("no_load", "a")->ratio_ci95_half == 0);
    CHECK_FALSE(model.find_cell("cpu_load", "b")->ratio);
    const std::string table = render_report({with, without}, quiet());
    CHECK(text_ratio(table, "cpu_load", "a") == "2.50");
    CHECK(text_ratio(table, "cpu_load", "b") == "-");
}

TEST_CASE("the table's Ratio equals the ratio of the JSON means", "[report]") {
    const auto files = fixture_files();
    const std::string table = render_report(files, quiet("text"));
    const auto json = nlohmann::json::parse(render_report(files, quiet("json")));
    std::map<std::string, double> no_load_mean;
    for (const auto& block : json["loads"])
        if (block["load"] == "no_load")
            for (const auto& row : block["rows"])
                no_load_mean[row["label"]] = row["time_s"]["mean"].get<double>();
    int checked = 0;
    for (const auto& block : json["loads"]) {
        for (const auto& row : block["rows"]) {
            const std::string label = row["label"], load = block["load"];
            INFO(label << " under " << load);
            REQUIRE(no_load_mean.count(label));
            const double ratio = row["time_s"]["mean"].get<double>() / no_load_mean[label];
            CHECK(row["ratio"].get<double>() == Approx(ratio).epsilon(1e-5));
            CHECK(text_ratio(table, load, label) == fixed(ratio, 2));
            ++checked;
        }
    }
    CHECK(checked == 10);
}

TEST_CASE("the --baseline option changes what the rows are compared with", "[report]") {
    auto options = quiet();
    options.baseline = "6.1.0-hz1000";
    const ReportModel model = build_report_model(fixture_files(), options);
    const Cell* old = model.find_cell("process_load", "6.1.0-hz100");
    REQUIRE(old->versus);
    CHECK(old->versus->significant);
    CHECK(old->versus->change_pct < 0);
    CHECK(model.find_cell("process_load", "6.1.0-hz1000")->is_baseline);

    options.baseline = "no-such-kernel";
    CHECK_THROWS_AS(build_report_model(fixture_files(), options), UsageError);
}

TEST_CASE("bad format, bad alpha and no files are usage errors", "[report]") {
    CHECK_THROWS_AS(render_report(fixture_files(), quiet("xml")), UsageError);
    auto options = quiet();
    options.alpha = 1.5;
    CHECK_THROWS_AS(render_report(fixture_files(), options), UsageError);
    CHECK_THROWS_AS(render_report({}, quiet()), UsageError);
}

TEST_CASE("warnings: noise, too few runs, fingerprints that differ", "[report]") {
    const ReportModel model = build_report_model(fixture_files(), quiet());
    CHECK(has_warning(model,
                      "6.1.0-hz1000: Time varies by more than 3.0% (CV) under cpu_load (6.9%)"));
    CHECK(has_warning(model,
                      "6.1.0-rt has fewer than 3 successful runs under no_load (2), "
                      "process_load (2)"));
    CHECK(has_warning(model,
                      "6.1.0-hz100 and 6.1.0-rt differ in more than the kernel "
                      "(system.cpufreq_governor 'performance' vs 'powersave')"));
    CHECK_FALSE(has_warning(model, "6.1.0-hz100 and 6.1.0-hz1000 differ"));
}

TEST_CASE("warnings: other work on the machine and hypervisor steal", "[report]") {
    auto with_outside = [](double others, double steal) {
        ResultFile f = make_result("k", {{"no_load", {100, 101, 102}}, {"io_load", {120, 121}}});
        for (auto& r : f.runs) {
            // io_load's own writeback shows as others: it must not count.
            r.others_cpu_pct = r.load == "io_load" ? 80 : others;
            r.steal_pct = steal;
        }
        return build_report_model({f}, quiet());
    };
    auto busy = with_outside(40, 9);
    CHECK_FALSE(has_warning(busy, "user time"));  // make_result's runs have none
    CHECK(has_warning(busy, "k: other work on the machine used 40.0% of a CPU (mean, max 40.0%)"));
    CHECK(has_warning(busy, "k: the hypervisor took 9.0% of a CPU (steal, mean, max 9.0%)"));
    auto calm = with_outside(2, 0.5);
    CHECK_FALSE(has_warning(calm, "other work"));
    CHECK_FALSE(has_warning(calm, "hypervisor"));
}

TEST_CASE("warnings: the same compile needing more user time means a slower CPU", "[report]") {
    auto with_user = [](std::vector<double> no_load_user) {
        ResultFile f = make_result("k", {{"no_load", {100, 110, 120}}, {"mem_load", {130, 131}}});
        std::size_t i = 0;
        for (auto& r : f.runs)
            // mem_load's cache misses raise user time: that is the load, not the CPU.
            r.user_s = r.load == "no_load" ? no_load_user.at(i++) : 400;
        return build_report_model({f}, quiet());
    };
    CHECK(has_warning(with_user({147, 193, 150}),
                      "k: the same compile took 147.0 to 193.0 s of user time without a load"));
    CHECK_FALSE(has_warning(with_user({147, 148, 149}), "user time"));
}

TEST_CASE("fingerprints: missing fields are skipped, MemTotal has a tolerance", "[report]") {
    auto a = make_result("a", {{"no_load", {10, 10.1, 10.2}}});
    auto b = make_result("b", {{"no_load", {10, 10.1, 10.2}}});
    a.system = {{"cpu_model", "X"}, {"mem_total_bytes", 4000000000}};
    b.system = {{"mem_total_bytes", 4030000000}};  // no cpu_model; 0.75% less memory
    CHECK(build_report_model({a, b}, quiet()).warnings.empty());

    b.system["mem_total_bytes"] = 8000000000;
    a.config = {{"workload", {{"kind", "synthetic"}, {"directory", "/home/x"}}}};
    b.config = {{"workload", {{"kind", "kernel"}, {"directory", "/home/y"}}}};
    const auto model = build_report_model({a, b}, quiet());
    REQUIRE(model.warnings.size() == 1);
    CHECK(model.warnings[0].find("system.mem_total_bytes") != std::string::npos);
    CHECK(model.warnings[0].find("config.workload.kind 'synthetic' vs 'kernel'") !=
          std::string::npos);
    CHECK(model.warnings[0].find("directory") == std::string::npos);
}

TEST_CASE("one label: nothing judged, no significance legend", "[report]") {
    const auto f = make_result("only", {{"no_load", {10, 10.1}}, {"cpu_load", {20, 20.1}}});
    const ReportModel model = build_report_model({f}, quiet());
    CHECK(model.warnings.empty());
    CHECK(significance_legend(model).empty());
    CHECK(render_report({f}, quiet()).find("Welch") == std::string::npos);
}

TEST_CASE("two labels from one distribution are not marked, two well apart are",
          "[report][stats]") {
    std::mt19937 gen(20240501);
    const auto base = make_result("base", {{"no_load", normal_sample(gen, 100, 1.5, 10)},
                                           {"cpu_load", normal_sample(gen, 180, 2.5, 10)}});
    const auto same = make_result("same", {{"no_load", normal_sample(gen, 100, 1.5, 10)},
                                           {"cpu_load", normal_sample(gen, 180, 2.5, 10)}});
    const auto apart = make_result("apart", {{"no_load", normal_sample(gen, 100, 1.5, 10)},
                                             {"cpu_load", normal_sample(gen, 190, 2.5, 10)}});
    const ReportModel model = build_report_model({base, same, apart}, quiet());
    for (const std::string load : {"no_load", "cpu_load"}) {
        const Cell* s = model.find_cell(load, "same");
        INFO(load << ": p = " << s->versus->welch->p);
        CHECK(s->versus->judged);
        CHECK_FALSE(s->versus->significant);
        CHECK(significance_mark(*s).empty());
    }
    const Cell* a = model.find_cell("cpu_load", "apart");
    CHECK(a->versus->significant);
    CHECK(a->versus->welch->p < 0.001);
    REQUIRE(a->versus->mann_whitney);  // 10 runs a side
    CHECK(a->versus->mann_whitney->p < 0.01);
    CHECK(significance_mark(*a) == "*");
    CHECK_FALSE(model.find_cell("no_load", "apart")->versus->significant);
}

TEST_CASE("large Loads counts keep the columns aligned", "[report]") {
    const auto table = render_report(fixture_files(), quiet());
    std::size_t ratio_end = std::string::npos;
    for (const auto& line : split_lines(table)) {
        if (line.starts_with("Kernel")) {
            const std::size_t end = line.find("Ratio") + 5;
            if (ratio_end != std::string::npos) CHECK(end == ratio_end);  // every block alike
            ratio_end = end;
        } else if (line.starts_with("6.1.0-")) {
            INFO(line);
            REQUIRE(line.size() >= ratio_end);
            CHECK(line[ratio_end - 3] == '.');  // "1.62" ends right under "Ratio"
        }
    }
    CHECK(table.find("2415704") != std::string::npos);  // ring hops, no decimals
}

TEST_CASE("snapshot: text", "[report][snapshot]") {
    expect_snapshot("report.txt", render_report(fixture_files(), quiet("text")));
}

TEST_CASE("snapshot: text --stats", "[report][snapshot]") {
    auto options = quiet("text");
    options.stats = true;
    expect_snapshot("report-stats.txt", render_report(fixture_files(), options));
}

TEST_CASE("markdown: a label from a result file opens no HTML tag, link or code span", "[report]") {
    const std::string label = "<img src=x onerror=alert(1)>[x](javascript:1)`c`";
    const std::string md =
        render_report({make_result(label, {{"no_load", {10, 10.1, 9.9}}})}, quiet("markdown"));
    INFO(md);
    // Every '<img' escaped, and there is one.
    auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (auto at = md.find(what); at != std::string::npos; at = md.find(what, at + 1)) ++n;
        return n;
    };
    CHECK(count("\\<img") >= 1);
    CHECK(count("\\<img") == count("<img"));
    CHECK(md.find("\\[x\\](javascript:1)") != std::string::npos);
    CHECK(md.find("\\`c\\`") != std::string::npos);
}

TEST_CASE("snapshot: markdown", "[report][snapshot]") {
    expect_snapshot("report.md", render_report(fixture_files(), quiet("markdown")));
}

TEST_CASE("snapshot: csv", "[report][snapshot]") {
    const std::string csv = render_report(fixture_files(), quiet("csv"));
    expect_snapshot("report.csv", csv);
    // Every row has as many fields as the header (no field holds a comma here).
    const auto lines = split_lines(csv);
    const auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
    REQUIRE(lines.size() == 11);
    for (const auto& line : lines) CHECK(commas(line) == commas(lines.front()));
}

TEST_CASE("snapshot: json", "[report][snapshot]") {
    const std::string json = render_report(fixture_files(), quiet("json"));
    expect_snapshot("report.json", json);
    const auto j = nlohmann::json::parse(json);
    const auto& row = j["loads"][2]["rows"][1];  // process_load, 6.1.0-hz1000
    CHECK(row["label"] == "6.1.0-hz1000");
    CHECK(row["runs"].size() == 5);
    CHECK(row["versus_baseline"]["significant"] == true);
    CHECK(row["versus_baseline"]["mann_whitney"].is_null());  // 4 ok runs: too few
}

TEST_CASE("snapshot: svg plot", "[report][snapshot]") {
    const std::string svg = plot_svg(build_report_model(fixture_files(), quiet()));
    expect_snapshot("plot.svg", svg);
    CHECK(svg.starts_with("<?xml"));
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(svg.find("href") == std::string::npos);  // self-contained
}

TEST_CASE("contest report: a malformed file among good ones is named and skipped",
          "[report][e2e]") {
    contest::test::ScratchDir dir("report-malformed");
    const fs::path data = CONTEST_TEST_DATA;
    const auto o = contest::test::run_contest_binary(
        {"report", fixture_dir().string(), (data / "results" / "malformed").string()}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(o.err.find("truncated.json") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') >= 1);
    expect_snapshot("report.txt", o.out);
}

TEST_CASE("contest report: nothing readable is a usage error naming the path", "[report][e2e]") {
    contest::test::ScratchDir dir("report-bad");
    const fs::path malformed = fs::path(CONTEST_TEST_DATA) / "results" / "malformed";
    auto o = contest::test::run_contest_binary({"report", malformed.string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("truncated.json") != std::string::npos);
    CHECK(o.out.empty());

    o = contest::test::run_contest_binary({"report", (dir / "missing").string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("missing") != std::string::npos);

    o = contest::test::run_contest_binary({"report", "--format", "xml", fixture_dir().string()},
                                          dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("--format xml") != std::string::npos);
}

TEST_CASE("contest report: json, stats and plot from the binary", "[report][e2e]") {
    contest::test::ScratchDir dir("report-formats");
    auto o = contest::test::run_contest_binary(
        {"report", "--format", "json", fixture_dir().string()}, dir.path());
    CHECK(o.exit_code == 0);
    expect_snapshot("report.json", o.out);
    CHECK(o.err.find("contest: warning: 6.1.0-hz1000: Time varies") != std::string::npos);

    const fs::path svg = dir / "plot.svg";
    o = contest::test::run_contest_binary(
        {"report", "--stats", "--plot", svg.string(), fixture_dir().string()}, dir.path());
    CHECK(o.exit_code == 0);
    expect_snapshot("report-stats.txt", o.out);
    CHECK(contest::test::slurp(svg).find("</svg>") != std::string::npos);
}

TEST_CASE("the committed kernel-compile example reprints, every load's Ratio above 1",
          "[report][e2e]") {
    contest::test::ScratchDir dir("report-example");
    const fs::path examples =
        fs::path(CONTEST_SOURCE_DIR) / "results" / "examples" / "6.18.44-fc-v657";
    auto o = contest::test::run_contest_binary({"report", "--format", "json", examples.string()},
                                               dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const auto j = nlohmann::json::parse(o.out);
    REQUIRE(j["labels"].size() == 1);
    CHECK(j["labels"][0]["config"]["workload"]["kind"] == "kernel");
    std::set<std::string> loads;
    for (const auto& block : j["loads"]) {
        const std::string load = block["load"];
        loads.insert(load);
        const auto& row = block["rows"][0];
        CHECK(row["runs_ok"].get<int>() >= 2);
        const LoadInfo* info = find_load(load);
        REQUIRE(info);
        INFO(load);
        if (info->does_work()) CHECK(row["ratio"].get<double>() > 1.0);
    }
    CHECK(loads ==
          std::set<std::string>{"no_load", "cacherun", "process_load", "io_load", "mem_load"});
    // And the text table: the blocks, in contest's order.
    o = contest::test::run_contest_binary({"report", examples.string()}, dir.path());
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("no_load:") < o.out.find("mem_load:"));
}

namespace {

// A result file whose runs were taken in rounds: run i of every load in round i.
ResultFile in_rounds(ResultFile f) {
    f.config["order"] = "rounds";
    return f;
}

}  // namespace

TEST_CASE("a drifting machine: pairing by round narrows Ratio's CI and finds a 5% load effect",
          "[report][stats]") {
    // The machine slows by 4 s a round; the load adds 5% to each round's time.
    std::mt19937 gen(5);
    std::vector<double> no_load, load;
    const auto noise = normal_sample(gen, 0, 0.05, 12);
    for (int round = 1; round <= 6; ++round) {
        const double machine = 100 + 4.0 * round;
        no_load.push_back(machine + noise[2 * (round - 1)]);
        load.push_back(machine * 1.05 + noise[2 * (round - 1) + 1]);
    }
    const ResultFile f = in_rounds(make_result("k", {{"no_load", no_load}, {"io_load", load}}));
    const ReportModel model = build_report_model({f}, quiet());
    const Cell* cell = model.find_cell("io_load", "k");
    REQUIRE(cell);
    REQUIRE(cell->ratio_estimate);
    const auto& paired = *cell->ratio_estimate;
    CHECK(paired.paired);
    CHECK(paired.pairs == 6);
    CHECK(*cell->ratio == Approx(1.05).epsilon(0.002));
    const auto unpaired = unpaired_ratio(load, no_load);
    REQUIRE(unpaired);
    INFO("paired ±" << paired.ci95_half << ", unpaired ±" << unpaired->ci95_half);
    CHECK(paired.ci95_half * 10 <= unpaired->ci95_half);
    REQUIRE(paired.test);
    REQUIRE(unpaired->test);
    CHECK(paired.test->significant);         // after Holm, in the model
    CHECK(unpaired->test->p > model.alpha);  // the unpaired test misses it, even uncorrected
    REQUIRE(paired.signed_rank);             // six pairs
    CHECK(paired.signed_rank->p < 0.05);
    CHECK(model.notes.front().find("paired by round") != std::string::npos);
}

TEST_CASE("blocks order and separate files fall back to the unpaired Ratio, and say so",
          "[report]") {
    const ResultFile f =
        make_result("k", {{"no_load", {100, 101, 99}}, {"io_load", {130, 128, 131}}});
    const ReportModel model = build_report_model({f}, quiet());
    const Cell* cell = model.find_cell("io_load", "k");
    REQUIRE(cell->ratio_estimate);
    CHECK_FALSE(cell->ratio_estimate->paired);
    CHECK(*cell->ratio == Approx(389.0 / 300.0));
    CHECK(model.notes.front().find("unpaired") != std::string::npos);
}

TEST_CASE("the baseline is the label that ran first, not the first in alphabetical order",
          "[report]") {
    ResultFile a = make_result("a-later", {{"no_load", {100, 101, 99}}});
    ResultFile b = make_result("b-first", {{"no_load", {100, 101, 99}}});
    a.started_at = "2026-02-01T00:00:00Z";
    b.started_at = "2026-01-01T00:00:00Z";
    CHECK(build_report_model({a, b}, quiet()).baseline == "b-first");
    ReportOptions chosen = quiet();
    chosen.baseline = "a-later";
    CHECK(build_report_model({a, b}, chosen).baseline == "a-later");
}

TEST_CASE("labels in wide characters keep the columns aligned", "[report]") {
    const auto a = make_result("内核补丁", {{"no_load", {100, 101, 99}}});
    const auto b = make_result("vanilla", {{"no_load", {100, 101, 99}}});
    const auto lines = split_lines(render_report({a, b}, quiet()));
    // Both rows end their Ratio column in the same terminal cell: 4 CJK
    // characters are 8 cells (12 bytes).
    std::size_t cjk = 0, ascii = 0;
    for (const auto& line : lines) {
        if (line.rfind("内核补丁", 0) == 0) cjk = line.find("1.00") - 12 + 8;
        if (line.rfind("vanilla", 0) == 0) ascii = line.find("1.00");
    }
    REQUIRE(ascii > 0);
    CHECK(cjk == ascii);
}
