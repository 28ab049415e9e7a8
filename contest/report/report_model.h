#pragma once
// Runs aggregated into the cells of the table: one per label under each load,
// with the statistics behind every figure and the comparison against the
// baseline label. Every exporter (text, markdown, csv, json, svg, compare)
// renders this one model, so they can never disagree about a number.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "contest/report/stats.h"

namespace contest {

// Below this many successful runs on either side, no p-value is given: with
// two runs the spread itself is a guess.
inline constexpr std::size_t kMinRunsForSignificance = 3;
// Mann-Whitney's normal approximation needs a few runs per side to mean much.
inline constexpr std::size_t kMinRunsForMannWhitney = 5;
// A coefficient of variation above this says the machine was noisy.
inline constexpr double kNoisyCv = 0.03;
// Other work on the machine (mean over a label's no_load and cacherun runs)
// and hypervisor steal (over all its runs) above these, in % of one CPU,
// take enough from a compile to move its time by more than the loads do.
inline constexpr double kBusyOthersPct = 10;
inline constexpr double kBusyStealPct = 5;
// The same compile's user time varies by ~1% on a steady CPU; beyond this
// (CV over a label's no_load and cacherun runs) the CPU's speed changed.
inline constexpr double kCpuSpeedCv = 0.03;

struct SourcedRun {
    RunRecord run;
    std::string file;  // the result file's name (not its folder: stable across machines)
};

struct VersusBaseline {
    double change_pct = 0;  // (mean - baseline mean) / baseline mean, in %
    double time_ratio = 0;  // mean / baseline mean
    bool judged = false;    // both sides have kMinRunsForSignificance runs
    std::optional<stats::WelchResult> welch;
    std::optional<stats::MannWhitneyResult> mann_whitney;  // both sides >= kMinRunsForMannWhitney
    bool significant = false;                              // judged and Welch's p < alpha
};

// One label under one load.
struct Cell {
    std::string label;
    std::string load;
    std::vector<SourcedRun> runs;  // every run, successful or not, in file order
    std::size_t failed = 0;        // runs whose status is not "ok" (left out of the statistics)
    // Over successful runs only.
    stats::Summary time;          // wall seconds
    stats::Summary cpu_pct;       // the workload's (user + sys) / wall
    stats::Summary load_units;    // Loads, in the load's unit
    stats::Summary load_cpu_pct;  // LCPU%
    // Time over the same label's no_load mean; nullopt without a no_load.
    std::optional<double> ratio;
    // Half-width of the ratio's 95% CI, first-order (delta method): the
    // relative half-widths of both means added in quadrature. Zero for no_load
    // itself (a sample over itself is exactly 1); NaN when a side has one run.
    double ratio_ci95_half = 0;
    bool is_baseline = false;
    std::optional<VersusBaseline> versus;  // absent for the baseline and when it has no ok run here

    std::vector<double> ok_wall_times() const;
};

struct LoadBlock {
    std::string load;
    std::string unit;         // of the Loads column, from the runs; "" for no_load/cacherun
    std::vector<Cell> cells;  // in label order; only labels that ran this load
};

struct LabelInfo {
    std::string label;
    std::vector<std::string> files;  // file names, in the order read
    nlohmann::json system;           // fingerprint of the first file
    nlohmann::json config;
};

struct ReportModel {
    std::vector<LabelInfo> labels;  // in the order first seen
    std::string baseline;
    double alpha = 0.05;
    std::vector<LoadBlock> blocks;      // in contest's order (registry), unknown loads last
    std::vector<std::string> warnings;  // one line each, without a prefix

    const LabelInfo* find_label(const std::string& label) const;
    const Cell* find_cell(const std::string& load, const std::string& label) const;
    bool any_unjudged() const;  // a non-baseline row lacks the runs to be judged
};

// Throws UsageError when --baseline names no label of the files, or when
// there are no files at all.
ReportModel build_report_model(const std::vector<ResultFile>& files, const ReportOptions& options);

// The fingerprint fields that must agree for two labels to be compared, as
// "dotted.path" names; each is skipped when either side lacks it.
const std::vector<std::string>& fingerprint_fields();

}  // namespace contest
