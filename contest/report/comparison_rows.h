#pragma once
// One comparison (a label against the baseline) as rows of measures, for
// the post shapes that give each measure a row of its own (post_lkp.h,
// post_normalized.h): under each load, Time, Ratio and the load's work
// done; under each load and latency probe, the wake-up latency's 50th,
// 90th, 99th and 99.9th percentiles (schbench's order) and the periods
// missed. Every figure, test, mark and minimum detectable effect is the
// model's; only the plain change between two of its figures, where the model
// tests none, and the 90th percentile, read from the pooled histogram as the
// model reads the others, are worked out here.
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"

namespace contest {

// What a row's figures are, for a reader who did not write contest.
struct RowKind {
    std::string name;       // "time_s", "ratio", "loads", "50.0th_us", "missed_pct"
    std::string title;      // "Time (the workload's wall time)", "cyclic latency", ...
    std::string units;      // "seconds", "Ratio", "ring hops", "us", "% of the periods"
    std::string statistic;  // "AMean", "GMean", "pooled percentile", ...
    bool lower_is_better = true;
    bool in_points = false;  // a change is the difference of two percentages
};

struct MeasureRow {
    std::string load;
    std::string probe;  // the latency probe; "" for the workload's and the load's measures
    RowKind kind;
    double base = 0, fresh = 0;
    // The spread of each side's runs, sd over mean in %; NaN where the
    // model keeps no per-run figures of it (Ratio, pooled percentiles).
    double base_cv_pct = 0, fresh_cv_pct = 0;
    double change_pct = 0;       // new against base: change_of_record (in points where in_points)
    const Test* test = nullptr;  // the test behind the row's mark; null: none
    bool judged = true;          // false: too few runs on a side to test
    bool significant = false;    // as the model's marks have it (the test of record)
    // "*" beyond noise (the test significant after the correction), "?"
    // not judged, "" otherwise.
    std::string mark() const;
    // "<load>.<measure>" or "<load>.<probe>.<measure>": io_load.time_s,
    // cpu_load.cyclic.99.0th_us.
    std::string path() const;
};

// The change of a figure, new against base, as every shape states it
// (docs/report.md, "The change of a figure"): where a test stands behind the
// figure, that test's own effect, which its mark and what it could see are
// about (Time paired by round: the geometric mean of the per-round ratios;
// otherwise the means' ratio; missed%: the difference of the runs' means,
// in points); else `plain_pct`, the figures' own change (plain_change_pct).
double change_of_record(const Test* test, double plain_pct);
// The figures' own change: relative in %, or in points for a percentage;
// NaN for a relative change from 0.
double plain_change_pct(double base, double fresh, bool in_points);
// Time's change against the baseline (change_of_record of its test).
double time_change_pct(const VersusBaseline& v);

// `fresh` against the model's baseline `base`, in the model's load order,
// the latency rows after each load's own.
std::vector<MeasureRow> comparison_rows(const ReportModel& model, const std::string& base,
                                        const std::string& fresh);

// A latency row's 90th percentile, which the model keeps no figure of: read
// from its pooled histogram by the model's own rule; NaN without one.
double pooled_p90_ns(const LatencyRow& row);

// "* beyond noise (adjusted p < 0.05, Holm over 11 tests, changes under 1%
// ignored); ? fewer than 3 runs on a side, not judged": the marks' legend.
std::string row_marks_legend(const ReportModel& model);

// The smallest changes the comparison's tests could see, test by test
// ("io_load.time_s ±7.4%, ..."): what a "no difference" is worth; "" when
// no test has one.
std::string rows_could_see(const std::vector<MeasureRow>& rows);

}  // namespace contest
