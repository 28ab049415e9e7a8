// `contest compare`'s "What else changed": every other measure the runs
// recorded, tested between the two kernels and corrected together per load.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/measure_changes.h"
#include "contest/report/measure_changes_text.h"
#include "contest/report/outputs.h"
#include "contest/report/report.h"
#include "contest/result/result_file.h"

namespace fs = std::filesystem;
using namespace contest;

namespace contest::report_test {
std::vector<ResultFile> fixture_files();
void expect_snapshot(const std::string& name, const std::string& actual);
}  // namespace contest::report_test

using namespace contest::report_test;

namespace {

ResultFile fixture_of(const std::string& label) {
    for (const auto& f : fixture_files())
        if (f.label == label) return f;
    FAIL("no fixture labelled " << label);
    return {};
}

// The same kernel again under another label: each load's runs rotated by
// one, so every measure keeps its values but no run is its own twin; then
// the involuntary context switches tripled in every run, and steal recorded
// only here.
ResultFile changed_copy(const ResultFile& base) {
    ResultFile f = base;
    f.label = "changed";
    f.path = "changed.json";
    std::map<std::string, std::vector<std::size_t>> by_load;
    for (std::size_t i = 0; i < f.runs.size(); ++i) by_load[f.runs[i].load].push_back(i);
    for (const auto& [load, at] : by_load)
        for (std::size_t k = 0; k < at.size(); ++k) {
            RunRecord r = base.runs[at[(k + 1) % at.size()]];
            r.index = f.runs[at[k]].index;
            f.runs[at[k]] = r;
        }
    for (auto& r : f.runs) {
        r.involuntary_switches *= 3;
        r.steal_pct = 0.5;
    }
    return f;
}

// Four finished runs of one load under a label, each shaped by `shape`
// (the run and its 0-based place).
ResultFile four_runs(const std::string& label, const std::string& load,
                     const std::function<void(RunRecord&, int)>& shape) {
    ResultFile f;
    f.label = label;
    f.path = label + ".json";
    f.complete = true;
    for (int i = 0; i < 4; ++i) {
        RunRecord r;
        r.load = load;
        r.index = i + 1;
        shape(r, i);
        f.runs.push_back(r);
    }
    return f;
}

ReportModel model_of(const std::vector<ResultFile>& files, const std::string& correction) {
    ReportOptions options;
    options.baseline = files.front().label;
    options.correction = stats::parse_correction(correction);
    options.print_warnings = false;
    return build_report_model(files, options);
}

// The measures a load's ok runs of one file carry on both sides here.
std::size_t measures_in(const ResultFile& f, const std::string& load) {
    for (const auto& r : f.runs)
        if (r.load == load) return r.load_unit.empty() ? 8 : 10;
    return 0;
}

}  // namespace

TEST_CASE("what else changed: the measure made to differ is listed, the unchanged are not",
          "[compare][measures]") {
    const ResultFile base = fixture_of("6.1.0-hz100");
    const ReportModel model = model_of({base, changed_copy(base)}, "holm");
    const auto changes = measure_changes(model, "6.1.0-hz100", "changed");
    REQUIRE(changes.size() == 4);  // no_load, cacherun, process_load, cpu_load: 5 runs each
    for (const auto& c : changes) {
        INFO(c.load);
        REQUIRE(c.changed.size() == 1);
        const MeasureChange& m = c.changed.front();
        CHECK(m.measure == "involuntary_switches");
        CHECK(m.test.effect_pct == Approx(200).epsilon(1e-9));
        CHECK(m.new_mean == Approx(3 * m.base_mean));
        CHECK(m.test.method == "Welch t");
        CHECK(c.only_new == std::vector<std::string>{"steal_pct"});
        CHECK(c.only_base.empty());
        // The correction is over every measure of the load: the others,
        // unchanged, have p = 1, so Holm multiplies the smallest by their count.
        CHECK(c.tested == measures_in(base, c.load));
        CHECK(m.test.p_adjusted >= m.test.p);
        CHECK(m.test.p_adjusted == Approx(std::min(1.0, m.test.p * static_cast<double>(c.tested))));
    }
    const std::string text = format_compare(model);
    INFO(text);
    CHECK(text.find("What else changed") != std::string::npos);
    CHECK(text.find("on new, the compile's count of involuntary context switches (preempted) "
                    "was 3.00x base's") != std::string::npos);
    CHECK(text.find("recorded only on new: steal_pct") != std::string::npos);
    CHECK(text.find("  user_s ") == std::string::npos);
}

TEST_CASE("what else changed: --correction none leaves each p alone", "[compare][measures]") {
    const ResultFile base = fixture_of("6.1.0-hz100");
    const ReportModel model = model_of({base, changed_copy(base)}, "none");
    for (const auto& c : measure_changes(model, "6.1.0-hz100", "changed"))
        for (const auto& m : c.changed) CHECK(m.test.p_adjusted == m.test.p);
}

TEST_CASE("what else changed: markdown and json carry the section", "[compare][measures]") {
    const ResultFile base = fixture_of("6.1.0-hz100");
    const ReportModel model = model_of({base, changed_copy(base)}, "holm");
    const std::string markdown = format_compare(model, "markdown");
    INFO(markdown);
    CHECK(markdown.find("| involuntary_switches |") != std::string::npos);
    CHECK(markdown.find("Recorded only on new: steal_pct") != std::string::npos);
    const auto json = nlohmann::json::parse(format_compare(model, "json"));
    const auto& section = json.at("what_else_changed");
    REQUIRE(section.size() == 4);
    for (const auto& load : section) {
        REQUIRE(load.at("changed").size() == 1);
        const auto& m = load.at("changed").at(0);
        CHECK(m.at("measure") == "involuntary_switches");
        CHECK(m.at("p_adjusted").get<double>() >= m.at("p").get<double>());
        CHECK(load.at("only_new") == nlohmann::json::array({"steal_pct"}));
    }
}

TEST_CASE("what else changed: the compile's own counts are per compile, not per second",
          "[compare][measures]") {
    // Every run does the same work. On new the compile faults 1.7x as often
    // and, on a machine that other work slowed, took 1.7x as long: per second
    // the two rates are alike, per compile the faults moved.
    auto side = [](const std::string& label, double faults, double stretch) {
        return four_runs(label, "no_load", [&](RunRecord& r, int i) {
            r.wall_s = (i % 2 ? 50 : 30) * stretch;
            r.minor_faults = static_cast<std::uint64_t>(faults) + 100 * i;
        });
    };
    const ReportModel model = model_of({side("a", 228000, 1), side("b", 394000, 1.73)}, "holm");
    const auto changes = measure_changes(model, "a", "b");
    REQUIRE(changes.size() == 1);
    const auto& changed = changes.front().changed;
    const auto faults = std::find_if(changed.begin(), changed.end(), [](const MeasureChange& m) {
        return m.measure == "minor_faults";
    });
    REQUIRE(faults != changed.end());
    CHECK(faults->base_mean == Approx(228150));
    CHECK(faults->test.effect_pct == Approx(72.8).margin(0.1));
    CHECK(measure_change_line(*faults) ==
          "on new, the compile's count of minor page faults was 1.73x base's");
}

TEST_CASE("what else changed: a measure that fell to zero says so", "[compare][measures]") {
    MeasureChange c;
    c.measure = "vmstat_thp_fault_alloc_per_s";
    c.meaning =
        "the rate of page faults served with a transparent huge page (vmstat thp_fault_alloc)";
    c.base_mean = 41.8;
    c.new_mean = 0;
    CHECK(measure_change_line(c) ==
          "on new, the rate of page faults served with a transparent huge page (vmstat "
          "thp_fault_alloc) fell to none");
}

TEST_CASE("what else changed: the timeline's, perf's and latency's measures are tested",
          "[compare][measures]") {
    // Three runs a side under one load, the I/O pressure doubled on new.
    auto side = [](const std::string& label, double io_some, double probe_p99_ns) {
        return four_runs(label, "io_load", [&](RunRecord& r, int i) {
            r.load_unit = "MiB written";
            r.wall_s = 100 + i;
            r.timeline = {{"totals",
                           {{"window_s", 100 + i},
                            {"psi",
                             {{"available", true},
                              {"io", {{"some_pct", io_some + i * 0.1}, {"full_pct", 1.0 + i}}}}},
                            {"vmstat", {{"nr_written", 1000.0 * (100 + i)}}},
                            {"disk", {{"written_bytes", 5e6 * (100 + i) + i}}}}}};
            r.perf = {{"events",
                       {{"context-switches", {{"counted", true}, {"value", 300.0 * (100 + i)}}},
                        {"cycles", {{"counted", false}}}}}};
            r.latency = {{"audio",
                          {{"missed_pct", 0.0},
                           {"latency", {{"percentiles_ns", {{"99.00", probe_p99_ns + i * 10}}}}}}}};
        });
    };
    const ReportModel model = model_of({side("a", 5, 20000), side("b", 10, 20000)}, "holm");
    const auto changes = measure_changes(model, "a", "b");
    REQUIRE(changes.size() == 1);
    const auto& c = changes.front();
    REQUIRE(c.changed.size() == 1);
    CHECK(c.changed.front().measure == "psi_io_some_pct");
    CHECK(c.changed.front().meaning.find("PSI io some") != std::string::npos);
    // Per second of the window, these counts are the same on both sides and
    // tested; the uncounted perf event is no measure.
    for (const std::string name :
         {"vmstat_nr_written_per_s", "disk_written_bytes_per_s", "perf_context_switches",
          "latency_audio_p99_us", "latency_audio_missed_pct", "psi_io_full_pct"})
        CHECK(std::none_of(c.changed.begin(), c.changed.end(),
                           [&](const MeasureChange& m) { return m.measure == name; }));
    CHECK(c.tested == 17);  // the run record's 10 and these 7
}

TEST_CASE("what else changed: the shares of the probe's late time are tested with the rest",
          "[compare][measures][latency]") {
    // --latency-why on both sides: on new the load's tasks hold 70% of the
    // cyclic probe's late time instead of 30%, the rest moving off the
    // workload; softirqs, the timer and the unexplained part do not move.
    auto side = [](const std::string& label, double load_pct, bool why = true) {
        return four_runs(label, "cpu_load", [&](RunRecord& r, int i) {
            r.wall_s = 100 + i;
            if (!why) {
                r.latency = {{"cyclic", {{"missed_pct", 1.0}}}};
                return;
            }
            const double late = 10e6 + 1e5 * i;
            const double load = late * (load_pct + i) / 100, softirq = late * 0.05;
            r.latency = {
                {"cyclic",
                 {{"missed_pct", 1.0},
                  {"why",
                   {{"recorded", true},
                    {"by_cause",
                     {{"late_ns", late},
                      {"tasks_by_class_ns", {{"load", load}, {"workload", late - load - softirq}}},
                      {"softirqs_ns", {{"TIMER", softirq}}},
                      {"interrupts_ns", nlohmann::json::object()},
                      {"timer_expiry_ns", 0},
                      {"unexplained_ns", 0}}}}}}}};
        });
    };
    const ReportModel model = model_of({side("a", 30), side("b", 70)}, "holm");
    const auto changes = measure_changes(model, "a", "b");
    REQUIRE(changes.size() == 1);
    const auto& c = changes.front();
    auto changed = [&](const std::string& name) {
        return std::find_if(c.changed.begin(), c.changed.end(),
                            [&](const MeasureChange& m) { return m.measure == name; });
    };
    REQUIRE(changed("latency_cyclic_late_load_pct") != c.changed.end());
    const MeasureChange& load = *changed("latency_cyclic_late_load_pct");
    CHECK(load.base_mean == Approx(31.5));
    CHECK(load.new_mean == Approx(71.5));
    CHECK(load.meaning == "the share of the probe's late time the load's tasks held");
    CHECK(changed("latency_cyclic_late_workload_pct") != c.changed.end());
    for (const std::string same :
         {"latency_cyclic_late_softirqs_pct", "latency_cyclic_late_timer_expiry_pct",
          "latency_cyclic_late_missed_pct"})
        CHECK(changed(same) == c.changed.end());
    // Corrected together: the shares are counted with the rest (at most the
    // ten; a share 0 on every run may be no test), and the load's p adjusted.
    const auto without =
        measure_changes(model_of({side("a", 30, false), side("b", 70, false)}, "holm"), "a", "b");
    REQUIRE(without.size() == 1);
    CHECK(c.tested >= without.front().tested + 2);
    CHECK(c.tested <= without.front().tested + 10);
    CHECK(load.test.p_adjusted > load.test.p);
}

TEST_CASE("what else changed: perf's rates as contest records them (numbers) are measures",
          "[compare][measures]") {
    // Instructions per cycle a third lower on new; an uncounted rate is the
    // object with its reason, and no measure.
    auto side = [](const std::string& label, double ipc) {
        return four_runs(label, "cpu_load", [&](RunRecord& r, int i) {
            r.wall_s = 100 + i;
            r.perf = {{"ipc", ipc + i * 0.01},
                      {"cache_miss_rate", {{"value", nullptr}, {"reason", "needs cache-misses"}}}};
        });
    };
    const ReportModel model = model_of({side("a", 1.5), side("b", 1.0)}, "holm");
    const auto changes = measure_changes(model, "a", "b");
    REQUIRE(changes.size() == 1);
    const auto& changed = changes.front().changed;
    CHECK(std::any_of(changed.begin(), changed.end(),
                      [](const MeasureChange& m) { return m.measure == "perf_ipc"; }));
    CHECK(std::none_of(changed.begin(), changed.end(),
                       [](const MeasureChange& m) { return m.measure == "perf_cache_miss_rate"; }));
}

TEST_CASE("snapshot: compare markdown, with what else changed", "[compare][measures][snapshot]") {
    std::vector<ResultFile> both;
    for (const auto& f : fixture_files())
        if (f.label == "6.1.0-hz100") both.push_back(f);
    for (const auto& f : fixture_files())
        if (f.label == "6.1.0-hz1000") both.push_back(f);
    const std::string markdown = format_compare(model_of(both, "holm"), "markdown");
    expect_snapshot("compare.md", markdown);
    CHECK(markdown.find("**process_load:** 2 of 10 measures changed beyond noise") !=
          std::string::npos);
}

namespace {

// One label's runs under no_load, each with forty vmstat deltas drawn around
// the same means; `moved` (if not empty) is drawn around twice its mean.
ResultFile simulated(const std::string& label, std::mt19937& gen, const std::string& moved) {
    ResultFile f;
    f.label = label;
    f.path = label + ".json";
    f.complete = true;
    std::normal_distribution<double> wall(50, 0.5), noise(0, 0.05);
    for (int i = 1; i <= 5; ++i) {
        RunRecord r;
        r.load = "no_load";
        r.index = i;
        r.wall_s = wall(gen);
        nlohmann::json vmstat = nlohmann::json::object();
        for (int k = 0; k < 40; ++k) {
            const std::string name = "m" + std::to_string(k);
            const double mean = (name == moved ? 2.0 : 1.0) * 100 * (k + 1);
            vmstat[name] = mean * (1 + noise(gen)) * r.wall_s;
        }
        r.timeline = {{"totals", {{"window_s", r.wall_s}, {"vmstat", vmstat}}}};
        f.runs.push_back(r);
    }
    return f;
}

}  // namespace

TEST_CASE("what else changed: one measure of forty moved is found, none moved is rarely listed",
          "[compare][measures]") {
    std::mt19937 gen(23);
    {
        const ReportModel model =
            model_of({simulated("a", gen, ""), simulated("b", gen, "m17")}, "holm");
        const auto changes = measure_changes(model, "a", "b");
        REQUIRE(changes.size() == 1);
        INFO(format_compare(model));
        REQUIRE(changes.front().changed.size() == 1);
        CHECK(changes.front().changed.front().measure == "vmstat_m17_per_s");
    }
    // Nothing differs: Holm keeps the chance of listing anything at alpha
    // (0.05) per load, where each of the 48 measures alone at 0.05 would list
    // something in most comparisons. Wide bounds, the sample being finite.
    auto share_listed = [&](const std::string& correction) {
        const int pairs = 200;
        int listed = 0;
        for (int i = 0; i < pairs; ++i) {
            const ReportModel model =
                model_of({simulated("a", gen, ""), simulated("b", gen, "")}, correction);
            const auto changes = measure_changes(model, "a", "b");
            REQUIRE(changes.size() == 1);
            listed += !changes.front().changed.empty();
        }
        return static_cast<double>(listed) / pairs;
    };
    const double holm = share_listed("holm"), none = share_listed("none");
    INFO("share of comparisons without a difference listing a measure: Holm "
         << holm << ", no correction " << none);
    CHECK(holm <= 0.10);
    CHECK(none >= 0.5);
}

TEST_CASE("report --stats shows what else changed for each label against the baseline",
          "[report][measures]") {
    ReportOptions options;
    options.stats = true;
    options.print_warnings = false;
    const std::string report = render_report(fixture_files(), options);
    INFO(report);
    std::vector<ResultFile> pair;
    for (const auto& f : fixture_files())
        if (f.label == "6.1.0-hz100") pair.push_back(f);
    for (const auto& f : fixture_files())
        if (f.label == "6.1.0-hz1000") pair.push_back(f);
    const ReportModel compared = model_of(pair, "holm");
    const std::string section =
        measure_changes_text(measure_changes(compared, "6.1.0-hz100", "6.1.0-hz1000"), compared);
    REQUIRE(section.find("process_load: 2 of 10 measures changed") != std::string::npos);
    CHECK(report.find("new: 6.1.0-hz1000, base: the baseline 6.1.0-hz100" + section) !=
          std::string::npos);
    // 6.1.0-rt has two runs a load: too few to test anything.
    CHECK(report.find("new: 6.1.0-rt") == std::string::npos);
    options.stats = false;
    CHECK(render_report(fixture_files(), options).find("What else changed") == std::string::npos);
}
