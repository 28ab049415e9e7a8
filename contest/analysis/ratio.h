#pragma once
// Ratio, the headline figure: a load's Time over the same label's no_load
// Time, with its 95% CI and the test of whether the load slowed the
// workload at all.
//
// Paired by round where the runs were taken in rounds: each load run over
// the no_load run of its own round, so a machine that drifts (a VM host's
// other tenants, heat) moves both runs of a pair alike and drops out of the
// ratio. Ratio is then the geometric mean of the per-round ratios, its CI and
// its test come from the per-round log-ratios (t on them; Wilcoxon's
// signed-rank from kMinPairsForSignedRank pairs). Without two such pairs
// (--order blocks, or the load's and no_load's runs in different files):
// the unpaired method, mean over mean with the delta method's CI and Welch's
// test on the times.
//
// Between labels, rounds pair only where the two labels ran in the same
// rounds: the values of one `contest run --vary` (docs/vary.md), whose files
// share a vary group. Time and Ratio against the baseline are then a paired
// t on the per-round log differences (paired_between_labels).
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contest/analysis/outside_work.h"

namespace contest {

inline constexpr std::size_t kMinPairs = 2;
inline constexpr std::size_t kMinPairsForSignedRank = 6;

// How finely a test's design measures the difference it tests: the standard
// error of that difference on the scale the test works on, the degrees of
// freedom, and how a difference d on that scale reads as effect_pct.
struct Resolution {
    double se = std::numeric_limits<double>::quiet_NaN();
    double df = std::numeric_limits<double>::quiet_NaN();
    bool log_scale = false;  // effect_pct = (exp(d) - 1) * 100
    double pct_per_unit = std::numeric_limits<double>::quiet_NaN();  // else d * pct_per_unit
    bool in_points = false;  // effect_pct is a difference of percentages (missed%), in points
};

// Rank tests need about pi/3 as many runs as a t-test on normal data for the
// same power (their asymptotic relative efficiency is 3/pi): a rank test's
// resolution is the t-test's standard error times sqrt(pi/3).
inline constexpr double kRankTestSeFactor = 1.0233267079464885;

// One hypothesis test behind a mark, a note or a verdict.
struct Test {
    std::string what;    // "Time", "Ratio", "load effect"
    std::string method;  // "Welch t", "paired t on log-ratios", ...
    double statistic = std::numeric_limits<double>::quiet_NaN();
    double df = std::numeric_limits<double>::quiet_NaN();
    double p = std::numeric_limits<double>::quiet_NaN();           // raw, two-sided
    double p_adjusted = std::numeric_limits<double>::quiet_NaN();  // over the family
    double effect_pct = std::numeric_limits<double>::quiet_NaN();  // what it tests, in %
    bool significant = false;  // adjusted p < alpha and |effect| >= the minimum effect
    // Net of the outside work (outside_work.h): the same hypothesis with
    // what other processes, the hypervisor and the machine's speed took out.
    bool net_of_outside = false;
    // Why no verdict is drawn from it, where none is: under --adjust outside,
    // the outside work or the machine's speed differs between the sides, so
    // the raw test is moved by it and the net one may take out what the
    // compared thing did (OutsideFit::sides_differ).
    std::string withheld;
    // Between labels: what the design could resolve (nullopt where unknown),
    // and the smallest true |effect_pct| it finds with 80% power at
    // mde_level, the level of the correction's most stringent step (set by
    // judge_significance; never below --min-effect).
    std::optional<Resolution> resolution;
    double mde_pct = std::numeric_limits<double>::quiet_NaN();
    double mde_level = std::numeric_limits<double>::quiet_NaN();
};

// The power the minimum detectable effect is stated at.
inline constexpr double kDetectionPower = 0.8;

// The smallest true |effect_pct| that `r` finds with kDetectionPower at a
// two-sided `level`; NaN where unknown, infinity where nothing would be found.
double detectable_effect_pct(const Resolution& r, double level);

// A workload run's time in its round: `round` 0 is a run not taken in
// rounds; `timed_out` runs carry no time (+infinity in rank tests).
struct RoundTime {
    std::string file;   // rounds pair only within one result file
    std::string group;  // its file's --vary group; empty for a run without --vary
    int round = 0;
    double wall_s = 0;
    bool timed_out = false;
};

struct RatioEstimate {
    double ratio = std::numeric_limits<double>::quiet_NaN();
    double ci95_low = std::numeric_limits<double>::quiet_NaN();
    double ci95_high = std::numeric_limits<double>::quiet_NaN();
    double ci95_half = std::numeric_limits<double>::quiet_NaN();  // (high - low) / 2
    bool paired = false;
    std::size_t pairs = 0;                      // rounds with both runs finished, paired only
    std::size_t unpaired_rounds = 0;            // unpaired: rounds with both (< kMinPairs)
    std::size_t censored_pairs = 0;             // rounds whose load run timed out
    std::vector<double> log_ratios;             // per round, paired only
    std::vector<std::string> log_ratio_groups;  // the --vary group of each, "" for none
    std::vector<int> log_ratio_rounds;          // the round of each
    std::optional<Test> test;                   // the load effect: Ratio = 1?
    std::optional<Test> signed_rank;            // paired, >= kMinPairsForSignedRank pairs
    // The load effect net of outside work: the fit (applied, or why not)
    // and the test on the basis that is not `test`'s (net where `test` is
    // raw; raw under --adjust outside, where `test` is the net one).
    std::optional<OutsideFit> outside;
    std::optional<Test> test_other;
};

// Rounds that hold a finished run of both.
std::size_t shared_rounds(std::span<const RoundTime> load, std::span<const RoundTime> no_load);

// Paired by round; nullopt below kMinPairs pairs. `load` may hold timed-out
// runs, `no_load` only finished ones.
std::optional<RatioEstimate> paired_ratio(std::span<const RoundTime> load,
                                          std::span<const RoundTime> no_load);
// One per-round value of a label (a log time, a log-ratio), keyed by the
// --vary group and round it ran in.
struct RoundValue {
    std::string group;
    int round = 0;
    double value = 0;
};

// Two labels of one --vary run: the paired t on a - b over the rounds both
// hold (values are logs, so effect_pct is exp(mean difference) - 1).
// nullopt below kMinPairs shared rounds, or outside a --vary group.
// Its resolution is on the log scale, from the spread of the differences.
std::optional<Test> paired_between_labels(std::span<const RoundValue> a,
                                          std::span<const RoundValue> b, const std::string& what);

// Mean over mean (both finished runs only); nullopt when a side is empty.
std::optional<RatioEstimate> unpaired_ratio(std::span<const double> load,
                                            std::span<const double> no_load);

// A load's Ratio over its label's no_load, the one estimate the report's
// table and the run summary give: paired by round (paired_ratio), else mean
// over mean of the finished runs (unpaired_ratio, with unpaired_rounds the
// rounds that held both); nullopt when a side has no finished run.
std::optional<RatioEstimate> load_ratio(std::span<const RoundTime> load,
                                        std::span<const RoundTime> no_load);

}  // namespace contest
