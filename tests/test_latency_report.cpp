// Latency in reports: histograms pooled over runs and read by nearest rank,
// the p99 and missed tests in the Time family, every exporter against
// snapshots of real (trimmed) --latency runs in tests/data/latency-results,
// and `contest run --latency` end to end through the binary.
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/latency_model.h"
#include "contest/report/latency_plot.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "report_fixtures.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using nlohmann::json;

namespace contest::report_test {

std::vector<ResultFile> latency_fixture() {
    std::vector<std::string> bad;
    auto files = read_result_paths({fs::path(CONTEST_TEST_DATA) / "latency-results"}, bad);
    REQUIRE(bad.empty());
    REQUIRE(files.size() == 2);
    return files;
}

}  // namespace contest::report_test

using namespace contest::report_test;

namespace {

// One probe's figures as a run records them: bins [lower_ns, count].
json probe_json(const std::vector<std::pair<std::int64_t, std::uint64_t>>& bins, double min_ns,
                double max_ns, double p99_ns, std::uint64_t periods, std::uint64_t missed) {
    json b = json::array();
    std::uint64_t n = 0;
    for (const auto& [lower, count] : bins) {
        b.push_back({lower, count});
        n += count;
    }
    return {{"probe", "cyclic"},
            {"missed_pct", 100.0 * static_cast<double>(missed) / static_cast<double>(periods)},
            {"probe_cpu", {{"cpu_pct", 1.5}}},
            {"latency",
             {{"samples", n},
              {"min_ns", min_ns},
              {"max_ns", max_ns},
              {"percentiles_ns", {{"50.00", min_ns}, {"99.00", p99_ns}, {"99.90", max_ns}}},
              {"periods", periods},
              {"missed", missed},
              {"histogram", {{"bins", b}}}}}};
}

ReportOptions quiet(const std::string& format, bool latency_only = true) {
    ReportOptions o;
    o.format = format;
    o.print_warnings = false;
    o.latency_only = latency_only;
    return o;
}

const LatencyRow& row_of(const ReportModel& m, const std::string& load, const std::string& label,
                         const std::string& probe) {
    for (const auto& block : m.blocks)
        if (block.load == load)
            for (const auto& row : block.latency)
                if (row.label == label && row.probe == probe) return row;
    FAIL("no latency row " << load << " " << label << " " << probe);
    throw;
}

}  // namespace

TEST_CASE("pooled percentiles are nearest rank over the summed bins, clamped to min and max",
          "[latency][report]") {
    // 4 samples: two in [1, 2) us, one in [2, 3) us, one in [5, 6) us; min 1.2 us, max 5.6 us.
    const std::vector<LatencyBin> bins = {{1000, 2}, {2000, 1}, {5000, 1}};
    CHECK(pooled_percentile_ns(bins, 25, 1200, 5600) == 1200);  // rank 1: the exact min
    CHECK(pooled_percentile_ns(bins, 50, 1200, 5600) == 1200);  // rank 2: bucket 1 us, clamped
    CHECK(pooled_percentile_ns(bins, 75, 1200, 5600) == 2000);  // rank 3
    CHECK(pooled_percentile_ns(bins, 99, 1200, 5600) == 5600);  // rank 4 = N: the exact max
    CHECK(pooled_percentile_ns(bins, 100, 1200, 5600) == 5600);
    // One sample: every percentile is it.
    CHECK(pooled_percentile_ns({{7000, 1}}, 50, 7300, 7300) == 7300);
    CHECK(std::isnan(pooled_percentile_ns({}, 50, 0, 0)));
}

TEST_CASE("a label's runs pool into one row: bins added, missed over all periods",
          "[latency][report]") {
    ResultFile f = make_result("k", {{"no_load", {10, 10}}});
    // Run 1: 98 samples at 10 us, 2 at 500 us. Run 2: 100 at 20 us.
    f.runs[0].latency = {
        {"cyclic", probe_json({{10000, 98}, {500000, 2}}, 10100, 500400, 10000, 100, 2)}};
    f.runs[1].latency = {{"cyclic", probe_json({{20000, 100}}, 20050, 20900, 20000, 100, 0)}};
    const ReportModel m = build_report_model({f}, quiet("text"));
    const LatencyRow& row = row_of(m, "no_load", "k", "cyclic");
    CHECK(row.runs == 2);
    CHECK(row.samples == 200);
    CHECK(row.pooled);
    // 200 samples: 98 in the 10 us bucket, then 100 in the 20 us one, so rank
    // 100 (p50) is a 20 us one.
    CHECK(row.p50_ns == 20000);
    // rank 198 (p99) is among the 20 us ones; rank 200 is the exact max.
    CHECK(row.p99_ns == 20000);
    CHECK(row.max_ns == 500400);
    CHECK(row.missed_pct == Approx(1.0));  // 2 of 200 periods
    CHECK(row.probe_cpu_pct == Approx(1.5));
    CHECK_FALSE(row.p99_test);  // one label: nothing to test against
}

TEST_CASE("a probe's record of the wrong shape is read as no figures, not thrown at",
          "[latency][report]") {
    // What make fuzz found: a result file is untrusted, and the latency
    // records are kept as JSON until the report reads them.
    ResultFile f = make_result("k", {{"no_load", {10, 10, 10}}});
    f.runs[0].latency = {{"cyclic", probe_json({{20000, 100}}, 20050, 20900, 20000, 100, 1)}};
    json odd = probe_json({{20000, 100}}, 20050, 20900, 20000, 100, 1);
    odd["latency"]["samples"] = "100";
    odd["latency"]["periods"] = -1;
    odd["latency"]["missed"] = 1e308;
    odd["latency"]["histogram"]["bins"][0] = json::object();
    f.runs[1].latency = {{"cyclic", odd}, {"audio", 7}};
    f.runs[2].latency = {{"cyclic", {{"latency", "none"}}}};
    ReportModel m;
    REQUIRE_NOTHROW(m = build_report_model({f}, quiet("text")));
    const LatencyRow& row = row_of(m, "no_load", "k", "cyclic");
    CHECK(row.runs == 3);
    CHECK(row.samples == 100);             // the first run's; the others' are no count
    CHECK_FALSE(row.pooled);               // a run without usable bins: percentiles averaged
    CHECK(row.missed_pct == Approx(1.0));  // 1 of the first run's 100 periods, nothing added
    for (const auto& block : m.blocks)
        for (const auto& r : block.latency) CHECK(r.probe != "audio");
}

TEST_CASE("compare tests p99 per run with Welch, in the same corrected family as Time",
          "[latency][compare]") {
    ResultFile base = make_result("base", {{"no_load", {10, 10.1, 9.9, 10}}});
    ResultFile fresh = make_result("new", {{"no_load", {10, 10.1, 9.9, 10}}});
    // 100 samples a run: 98 at 40 us and two at the run's p99 (rank 99).
    const double base_p99[] = {50000, 52000, 51000, 49000};
    const double new_p99[] = {900000, 950000, 920000, 980000};
    const std::uint64_t new_missed[] = {1, 2, 1, 3};
    for (int i = 0; i < 4; ++i) {
        base.runs[i].latency = {
            {"cyclic", probe_json({{40000, 98}, {static_cast<std::int64_t>(base_p99[i]), 2}}, 40000,
                                  base_p99[i] + 10, base_p99[i], 100, 0)}};
        fresh.runs[i].latency = {
            {"cyclic", probe_json({{40000, 98}, {static_cast<std::int64_t>(new_p99[i]), 2}}, 40000,
                                  new_p99[i] + 10, new_p99[i], 100, new_missed[i])}};
    }
    ReportOptions o = quiet("text", false);
    o.baseline = "base";
    const ReportModel m = build_report_model({base, fresh}, o);
    const LatencyRow& row = row_of(m, "no_load", "new", "cyclic");
    REQUIRE(row.p99_test);
    CHECK(row.p99_test->method == "Welch t on per-run figures");
    CHECK(row.p99_test->effect_pct > 1000);
    CHECK(row.p99_test->significant);
    CHECK(std::isfinite(row.p99_test->p_adjusted));
    CHECK(row.p99_test->p_adjusted >= row.p99_test->p);  // corrected with the rest
    // Time (1 test) + p99 + missed: the family holds the latency tests too.
    CHECK(m.family_size == 3);
    const std::string text = format_compare(m, "text");
    CHECK(text.find("Latency (pooled p99") != std::string::npos);
    INFO(text);
    // Pooled: 400 samples, 392 at 40 us, then the tails two each in order:
    // rank 396 is the second smallest tail (base 50 us, new 920 us).
    CHECK(text.find("p99 50.0 -> 920.0") != std::string::npos);
}

TEST_CASE("snapshot: latency blocks in every format", "[latency][report][snapshot]") {
    const auto files = latency_fixture();
    expect_snapshot("latency-report.txt", render_report(files, quiet("text")));
    expect_snapshot("latency-report.md", render_report(files, quiet("markdown")));
    expect_snapshot("latency-report.csv", render_report(files, quiet("csv")));
    expect_snapshot("latency-report.json", render_report(files, quiet("json")));
    // Without --latency the blocks follow the classic table.
    const std::string full = render_report(files, quiet("text", false));
    CHECK(full.find("Kernel") < full.find("no_load: cyclic latency (us):"));
}

TEST_CASE("snapshot: latency in compare and the distribution plot",
          "[latency][compare][snapshot]") {
    const auto files = latency_fixture();
    ReportOptions o = quiet("text", false);
    o.baseline = files.front().label;
    const ReportModel m = build_report_model(files, o);
    expect_snapshot("latency-compare.txt", format_compare(m, "text"));
    const std::string svg = latency_plot_svg(m);
    CHECK(svg.find("no_load: cyclic") != std::string::npos);
    CHECK(svg.find("cpu_load: audio") != std::string::npos);
    expect_snapshot("latency-plot.svg", svg);
}

TEST_CASE("contest run --latency records probes per run, leaves nothing behind, report shows them",
          "[latency][e2e][slow]") {
    test::ScratchDir dir("latency-e2e");
    const auto results = dir / "results";
    auto o = test::run_contest_binary({"run",
                                       "-w",
                                       "command",
                                       "--workload-cmd",
                                       "sleep 1",
                                       "-n",
                                       "1",
                                       "--warmup",
                                       "1",
                                       "--latency",
                                       "cyclic",
                                       "--workdir",
                                       (dir / "work").string(),
                                       "--results",
                                       results.string(),
                                       "-k",
                                       "e2e",
                                       "-q",
                                       "no_load",
                                       "cpu_load"},
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    fs::path file;
    for (const auto& e : fs::recursive_directory_iterator(results))
        if (e.path().extension() == ".json") file = e.path();
    const json j = json::parse(test::slurp(file));
    CHECK(j["config"]["latency"]["probes"][0]["probe"] == "cyclic");
    REQUIRE(j["runs"].size() == 2);
    for (const auto& run : j["runs"]) {
        const json& c = run["latency"]["cyclic"];
        CHECK(c["latency"]["samples"].get<std::uint64_t>() > 0);
        CHECK(c["probe_cpu"]["cpu_pct"].is_number());
        CHECK(c["probe_cpu"]["user_s"].get<double>() + c["probe_cpu"]["sys_s"].get<double>() > 0);
    }

    auto r = test::run_contest_binary({"report", "--latency", results.string()}, dir.path());
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("Kernel") != std::string::npos);
    // One run per load: the pooled figures are that run's own.
    for (const auto& run : j["runs"]) {
        const std::string load = run["load"];
        const json& lat = run["latency"]["cyclic"]["latency"];
        char p99[32], max[32];
        std::snprintf(p99, sizeof p99, "%.1f", lat["percentiles_ns"]["99.00"].get<double>() / 1000);
        std::snprintf(max, sizeof max, "%.1f", lat["max_ns"].get<double>() / 1000);
        const auto at = r.out.find(load + ": cyclic latency (us):");
        REQUIRE(at != std::string::npos);
        const std::string block = r.out.substr(at, r.out.find('\n', r.out.find("e2e", at)) - at);
        INFO(block);
        CHECK(block.find(std::string(" ") + p99 + " ") != std::string::npos);
        CHECK(block.find(std::string(" ") + max + " ") != std::string::npos);
    }
}

TEST_CASE("latency --why splits are summed per row and read as shares of the late time",
          "[latency]") {
    auto files = contest::report_test::latency_fixture();
    // Every cyclic run of the first label under no_load: 10 ms late, 6 of
    // it the load's tasks, 3 a softirq, 1 unexplained.
    std::size_t given = 0;
    for (auto& run : files[0].runs) {
        if (run.load != "no_load" || !run.ok() || !run.latency.contains("cyclic")) continue;
        // Each run's worst spike: 4 ms, the second run's 5 ms, with many short stretches.
        nlohmann::json timeline = {{{"at_ns", 0}, {"ns", 50'000}, {"kind", "timer expiry"}},
                                   {{"at_ns", 50'000},
                                    {"ns", 3'000'000},
                                    {"kind", "task"},
                                    {"name", "spinner"},
                                    {"pid", 4242},
                                    {"class", "load"}}};
        double at = 3'050'000;
        for (int i = 0; i < 5; ++i, at += 10'000)
            timeline.push_back(
                {{"at_ns", at}, {"ns", 10'000}, {"kind", "irq"}, {"name", "local_timer"}});
        const double spike_ns = given == 1 ? 5'000'000 : 4'000'000;
        timeline.push_back({{"at_ns", at},
                            {"ns", spike_ns - at},
                            {"kind", "task"},
                            {"name", "kworker/1:2"},
                            {"pid", 77},
                            {"class", "kernel thread"}});
        run.latency["cyclic"]["why"] = {
            {"recorded", true},
            {"worst", {{{"late_ns", spike_ns}, {"cpu", 1}, {"timeline", timeline}}}},
            {"late_wakeups", 4},
            {"in_trace", 3},
            {"by_cause",
             {{"late_ns", 10'000'000},
              {"tasks_by_class_ns", {{"load", 6'000'000}}},
              {"interrupts_ns", nlohmann::json::object()},
              {"softirqs_ns", {{"NET_RX", 3'000'000}}},
              {"timer_expiry_ns", 0},
              {"unexplained_ns", 1'000'000}}}};
        ++given;
    }
    REQUIRE(given > 0);
    ReportOptions o;
    o.print_warnings = false;
    const auto model = build_report_model(files, o);
    const LatencyRow* row = nullptr;
    for (const auto& block : model.blocks)
        for (const auto& r : block.latency)
            if (block.load == "no_load" && r.probe == "cyclic" && r.label == files[0].label)
                row = &r;
    REQUIRE(row);
    CHECK(row->why_runs == given);
    CHECK(row->late_wakeups == 4 * given);
    CHECK(row->late_in_trace == 3 * given);
    CHECK(row->late_ns == Approx(10e6 * given));
    CHECK(row->late_by_cause_ns.at("load tasks") == Approx(6e6 * given));
    const auto text = render_report(files, o);
    CHECK_THAT(text, Catch::Contains("60% load tasks, 30% softirq NET_RX, 10% unexplained"));
    // The worst spike of the label, over its runs, as a timeline: the short
    // interrupts between the two tasks said as one line.
    REQUIRE(given >= 2);
    REQUIRE(row->worst_spike);
    CHECK(row->worst_spike->late_ns == Approx(5e6));
    const std::string head =
        "worst spike: cyclic, " + files[0].label + ": 5.000 ms late, no_load run ";
    CHECK_THAT(text, Catch::Contains(head));
    CHECK_THAT(text,
               Catch::Contains("   +0.000 ms      0.050 ms  timer expiry\n"
                               "   +0.050 ms      3.000 ms  spinner pid 4242 (load)\n"
                               "   +3.050 ms      0.050 ms  (5 shorter stretches)\n"
                               "   +3.100 ms      1.900 ms  kworker/1:2 pid 77 (kernel thread)\n"));
    o.format = "markdown";
    CHECK_THAT(render_report(files, o), Catch::Contains("```\n" + head));
    o.format = "html";
    const std::string html = render_report(files, o);
    CHECK_THAT(html,
               Catch::Contains("<title>+0.050 ms, 3.000 ms: spinner pid 4242 (load)</title>"));
    CHECK_THAT(html, Catch::Contains(">kernel thread</text>"));
    o.format = "json";
    const auto j = nlohmann::json::parse(render_report(files, o));
    bool found = false;
    for (const auto& block : j.at("loads"))
        for (const auto& r : block.value("latency", nlohmann::json::array()))
            if (r.at("label") == files[0].label && !r.at("worst_spike").is_null()) {
                found = true;
                CHECK(r.at("worst_spike").at("late_ns") == 5e6);
                CHECK(r.at("worst_spike").at("timeline").size() == 8);
            }
    CHECK(found);
}
