#pragma once
// Runs aggregated into the cells of the table: one per label under each load,
// with the statistics behind every figure and the comparison against the
// baseline label. Every exporter (text, markdown, csv, json, svg, compare)
// renders this one model, so they can never disagree about a number. Built
// from result files by build_report_model.h.
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/latency_rows.h"
#include "contest/analysis/multiple_comparisons.h"
#include "contest/analysis/ratio.h"
#include "contest/analysis/stats.h"
#include "contest/result/result_file.h"

namespace contest {

struct SourcedRun {
    RunRecord run;
    std::string file;         // the result file's name (not its folder: stable across machines)
    int round = 0;            // the round it ran in (recorded, or from the file's order); 0: none
    std::string vary_group;   // the file's --vary group: labels sharing one shared rounds
    double capacity_pct = 0;  // its machine's online CPUs x 100; 0: not recorded
};

struct VersusBaseline {
    double change_pct = 0;  // (mean - baseline mean) / baseline mean, in %
    double time_ratio = 0;  // mean / baseline mean
    bool judged = false;    // both sides have kMinRunsForSignificance runs
    std::optional<stats::WelchResult> welch;
    std::optional<stats::MannWhitneyResult> mann_whitney;  // both sides >= kMinRunsForMannWhitney
    // Time against the baseline: Welch's t, or Mann-Whitney's U when a side
    // has timed-out runs (ranked slower than every finished run); paired t on
    // the per-round log differences where both labels come from one --vary run.
    std::optional<Test> time_test;
    // Ratio against the baseline's: Welch's t on the per-round log-ratios of
    // both labels ("this load hurts more on this kernel"); paired Ratios only;
    // paired by round where both labels come from one --vary run.
    std::optional<Test> ratio_test;
    bool significant = false;        // time_test significant (adjusted p, minimum effect)
    bool ratio_significant = false;  // ratio_test significant
    // Time and Ratio net of outside work (outside_work.h): the fits, applied
    // or why not, and each test on the other basis than the one of record
    // (net by default; raw under --adjust outside).
    std::optional<OutsideFit> time_outside, ratio_outside;
    std::optional<Test> time_other, ratio_other;
    bool failures = false;  // either side has runs that did not finish ok
};

// One label under one load.
struct Cell {
    std::string label;
    std::string load;
    std::vector<SourcedRun> runs;  // every run, successful or not, in file order
    std::size_t failed = 0;        // runs whose status is not "ok" (left out of the statistics)
    std::size_t timed_out = 0;     // of those, stopped by --timeout
    // Over successful runs only.
    stats::Summary time;          // wall seconds
    stats::Summary cpu_pct;       // the workload's (user + sys) / wall
    stats::Summary load_units;    // Loads, in the load's unit
    stats::Summary load_cpu_pct;  // LCPU%
    bool loads_counted = true;    // false: a load that counts no work (Loads "-")
    // Time over the same label's no_load (see ratio.h); nullopt without a
    // no_load. ratio_ci95_half is zero for no_load itself (a sample over
    // itself is exactly 1) and NaN when a side has one run.
    std::optional<double> ratio;
    double ratio_ci95_half = 0;
    std::optional<RatioEstimate> ratio_estimate;  // absent for no_load and without one
    bool is_baseline = false;
    std::optional<VersusBaseline> versus;  // absent for the baseline and when it has no ok run here
    // How much of its Time's spread the outside work explains (the log time
    // of each run on the covariates; the fit's effect means nothing here).
    std::optional<OutsideFit> outside_spread;

    std::vector<double> ok_wall_times() const;
    // Finished runs' times, with timed-out runs as +infinity (for rank tests).
    std::vector<double> wall_times_censored() const;
    std::vector<RoundTime> round_times() const;
    // log(Time) of finished runs from --vary runs, by group and round.
    std::vector<RoundValue> round_log_times() const;
    // "5", or "5+2F" with 2 runs that did not finish ok.
    std::string runs_text() const;
};

struct LoadBlock {
    std::string load;
    std::string unit;                 // of the Loads column, from the runs; "" for no_load/cacherun
    std::vector<Cell> cells;          // in label order; only labels that ran this load
    std::vector<LatencyRow> latency;  // --latency runs: by probe, then label (latency_rows.h)
};

struct LabelInfo {
    std::string label;
    std::vector<std::string> files;  // file names, in the order read
    nlohmann::json system;           // fingerprint of the first file
    nlohmann::json config;
    std::vector<nlohmann::json> systems;  // every file's fingerprint, as files
    std::string started_at;               // the earliest of its files (ISO 8601 UTC)
};

// One label's noise by level under one load and measure, for --kernel
// guests with more than one run a boot (level_noise.h: the figures and the
// advice behind the notes' words, for json).
struct LevelNoiseRow {
    std::string label, load, measure;
    std::size_t boots = 0, runs = 0;
    double mean = 0;
    double between_boot_variance = 0, within_boot_variance = 0, between_share = 0;
    double f = 0, p = 0;  // the F test of the boots' means; NaN when the runs agree exactly
    // What a boot and a run within one cost (s), and the runs a boot that
    // give the narrowest mean for the time; unset when no boot's cost is recorded.
    std::optional<double> boot_s, run_s;
    std::optional<unsigned> advised_runs_per_boot;
    bool advice_at_cap = false;  // the boots add no spread: at least that many
};

// How much of two guest labels' spread under one load the rounds share:
// each round's guests ran at one moment of the host (at once with --duet),
// so its drift falls on both and the pairs by round cancel it. On the log
// figures: shared = 2 cov(a, b) / (var a + var b) over the rounds both have,
// the part of the spread the paired tests do not see (0 where the rounds
// do not go together).
struct SharedNoiseRow {
    std::string label, baseline, load, measure;
    std::size_t pairs = 0;
    double label_variance = 0, baseline_variance = 0;  // of the log figures
    double difference_variance = 0;                    // of the paired log ratios
    double shared_share = 0;                           // in [0, 1]
};

struct ReportModel {
    std::vector<LabelInfo> labels;  // in the order first seen
    std::string baseline;
    double alpha = 0.05;
    stats::Correction correction = stats::Correction::holm;
    double min_effect_pct = 1;
    bool adjust_outside = false;        // the net-of-outside-work tests are the verdict of record
    std::vector<LoadBlock> blocks;      // in contest's order (registry), unknown loads last
    std::vector<std::string> warnings;  // one line each, without a prefix
    // The labels whose runs ran in emulated guests (--kernel under TCG).
    std::vector<std::string> emulated_labels;
    // Under the table: how Ratio was computed, loads that did not load.
    std::vector<std::string> notes;
    std::vector<LevelNoiseRow> level_noise;    // what the noise-by-level notes say
    std::vector<SharedNoiseRow> shared_noise;  // what the rounds' shared-noise notes say
    std::size_t family_size = 0;               // tests behind the marks, for the correction
    // The level each test's minimum detectable effect is stated at (the
    // correction's most stringent step; significance.cpp).
    double detection_level = std::numeric_limits<double>::quiet_NaN();

    const LabelInfo* find_label(const std::string& label) const;
    const Cell* find_cell(const std::string& load, const std::string& label) const;
    bool any_unjudged() const;      // a non-baseline row lacks the runs to be judged
    bool any_ratio_tested() const;  // some row's Ratio is tested against the baseline's
    bool has_latency() const;       // some block has latency rows (--latency runs)
};

}  // namespace contest
