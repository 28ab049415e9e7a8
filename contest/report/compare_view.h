#pragma once
// What comparing one label with another found: per load, the Time and Ratio
// findings, the geometric mean, the verdict (long and in a few words) and
// what else changed. Worked out once from the model and rendered by compare's
// formats, by the mail post and by the HTML page.
#include <cmath>
#include <string>
#include <vector>

#include "contest/analysis/measure_changes.h"
#include "contest/analysis/report_model.h"

namespace contest {

// What the comparison found under one load.
struct LoadFinding {
    std::string load;
    const Cell* base = nullptr;
    const Cell* fresh = nullptr;  // carries the versus-baseline figures
    std::string time_finding;     // "significant", "not significant", "not judged (...)", ...
    std::string ratio_finding;    // "" without a Ratio test
};

// The loads sorted by what the comparison found there, for the verdict.
struct Findings {
    std::vector<std::string> slower, faster, hurts_more, hurts_less, same, unjudged;
    std::vector<std::string> same_resolution;  // "io_load ±7.4%": what each of `same` could see
    std::vector<std::string> failed;           // and found different anyway
    std::vector<std::string> failed_unsure;    // would otherwise read as the same
    // The bare load names of slower, faster, hurts_more and hurts_less.
    std::vector<std::string> slower_loads, faster_loads, hurts_more_loads, hurts_less_loads;
    // Under --adjust outside: "cpu_load (Time: why)", a test withheld because
    // the outside work differs between the sides; the loads where a test of
    // the verdict stands raw, the adjustment not applying ("cpu_load Ratio");
    // whether any stands net.
    std::vector<std::string> withheld, raw_under;
    bool any_net = false;

    bool anything_judged() const;
};

// What the verdict stands on, truthfully: "raw" (no --adjust outside, or
// it applied to none of the verdict's tests), "net of outside work" (to
// all), "mixed".
std::string verdict_basis(const Findings& found, const ReportModel& model);
// The same over every test of record of the model (each load's Ratio to its
// no_load too): the report's.
std::string verdict_basis(const ReportModel& model);

struct CompareView {
    std::string base, fresh;
    std::vector<LoadFinding> loads;
    double geometric_mean = std::nan("");
    int geometric_count = 0;
    Findings findings;
    std::string verdict;
    // The verdict in a few words, for a subject line: "slower under io_load",
    // "no difference beyond noise", "too few runs to judge".
    std::string short_verdict;
    std::vector<LoadMeasureChanges> changes;  // what else changed, per load judged
};

// `fresh` against `base`, two labels of the model; the model's baseline is
// what its versus-baseline figures are against, so `base` is the baseline.
CompareView compare_view(const ReportModel& model, const std::string& base,
                         const std::string& fresh);

// Latency (--latency runs): per load and probe, fresh's p99 and deadlines
// missed against base's, each tested as Time is (Welch on one figure per
// run, in the same corrected family). The first row is the header.
std::vector<std::vector<std::string>> latency_comparison_rows(const ReportModel& model,
                                                              const std::string& base,
                                                              const std::string& fresh);

// "12.30 ± 0.40 s"
std::string mean_and_ci(const stats::Summary& s);
// "p=0.0123", "p<0.0001", "p=-": a test's adjusted p.
std::string p_text(const std::optional<Test>& t);
// A test's finding as a row says it: "significant", or "not significant
// (below 1%); this comparison could see ±7.4% or more".
std::string test_finding(const Test& t, const ReportModel& model);
// Time's change of record: the means' ("-14.2%"), or under --adjust outside
// where the adjustment applied, the net one ("-1.9% net").
std::string change_text(const VersusBaseline& v);
// "1.15 -> 1.08": base's Ratio and new's.
std::string ratio_pair(const LoadFinding& f);
// "geometric mean of the Time changes above, over 3 loads: 1.018 (+1.8%)\n"
// (each load's change of record, new against base); "" without one.
std::string geometric_line(const CompareView& view);

}  // namespace contest
