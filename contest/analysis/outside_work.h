#pragma once
// A comparison with what the rest of the machine took out of it. Two
// covariates, both outside what is compared:
//   - the outside share: CPU taken by processes outside contest's tree and
//     by the hypervisor (others_cpu_pct + steal_pct). A workload that gets a
//     smaller share of the machine takes longer in proportion, so time goes
//     as 1 / left, left = capacity - outside (capacity = online CPUs x 100).
//   - the machine's speed: the CPU time of a fixed unit of work timed
//     through each run (unit_cpu_us). A host that takes the CPU without
//     reporting steal, or a CPU that slows, shows there.
// Per round (paired) the log time difference of the two sides is modelled as
//     d = a - b * log(left_new / left_base) + c * log(unit_new / unit_base)
// and a, the difference at equal outside work and speed, is the effect.
// Without shared rounds the same model is fitted to each run's log time with
// a term for its side. A slope is estimated by least squares where the
// observations allow (kMinRoundsForSlope per covariate); with fewer, the
// share's slope is the physics' 1 and the speed is not used (how a compile's
// time follows a loop's speed is not known in advance). Each covariate is
// used where it explains the spread, both where both do: of the models the
// data allow, the one with the smallest residual variance per degree of
// freedom.
//
// The raw comparison stays beside it. A covariate is not used where it
// itself differs between the sides (the thing compared may be changing it:
// a scheduler patch that starves background work must not have its effect
// adjusted away), and the adjustment is refused, with why, where too few
// observations remain or it explains less than kMinExplained of the spread.
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>

namespace contest {

// One run as the adjustment sees it.
struct OutsidePoint {
    double wall_s = 0;
    double outside_pct = 0;             // others_cpu_pct + steal_pct, % of one CPU
    std::optional<double> unit_cpu_us;  // the machine's speed; unset when not sampled
};

// One shared round: the signed sum of its runs' logs, e.g. Time between
// labels is new - base; a Ratio between labels is (load - no_load) of the
// new label less that of the base.
struct RoundContrast {
    double log_time = 0;             // the paired difference of log times
    double log_left = 0;             // the same sum of log(capacity - outside)
    double outside_pct = 0;          // the same sum of outside_pct
    std::optional<double> log_unit;  // the same sum of log(unit_cpu_us); unset if any is
};

inline constexpr std::size_t kMinRoundsForAdjustment = 3;
// Observations per estimated slope, beyond the effect's own: 4 degrees of
// freedom left with one covariate.
inline constexpr std::size_t kMinRoundsForSlope = 6;
// Below this share of the spread explained, the adjustment is noise.
inline constexpr double kMinExplained = 0.10;

struct OutsideFit {
    bool applied = false;
    std::string why_not;  // when not applied; also why a covariate was left out
    bool paired = false;
    std::size_t observations = 0;  // rounds (paired) or runs (unpaired)
    bool uses_share = false, uses_speed = false;
    double share_slope = std::numeric_limits<double>::quiet_NaN();  // b, 1 in the physics
    bool share_slope_estimated = false;
    double speed_slope = std::numeric_limits<double>::quiet_NaN();  // c, always estimated
    // 1 - residual variance / raw variance, both per degree of freedom: the
    // share of the spread the covariates explain.
    double explained = 0;
    double raw_sd = std::numeric_limits<double>::quiet_NaN();       // log scale
    double residual_sd = std::numeric_limits<double>::quiet_NaN();  // log scale
    // The effect at equal outside work: log scale, its standard error and
    // degrees of freedom, the t statistic and its two-sided p.
    double effect_log = std::numeric_limits<double>::quiet_NaN();
    double se = std::numeric_limits<double>::quiet_NaN();
    double df = std::numeric_limits<double>::quiet_NaN();
    double t = std::numeric_limits<double>::quiet_NaN();
    double p = std::numeric_limits<double>::quiet_NaN();

    double effect_pct() const;  // exp(effect_log) - 1, in %
    // "log-share slope 1.03 (estimated), speed slope 0.4; explains 96% of
    // the spread", or why not.
    std::string description() const;
};

// The sum of sign * each run's logs; `capacity_pct` is online CPUs x 100.
// nullopt when a run has no time or the outside left no share.
struct SignedPoint {
    int sign = 1;
    OutsidePoint point;
};
std::optional<RoundContrast> round_contrast(std::span<const SignedPoint> runs, double capacity_pct);

// Paired by round.
OutsideFit fit_paired(std::span<const RoundContrast> rounds);
// Two sides without shared rounds: each run's log time, a term for its side.
OutsideFit fit_unpaired(std::span<const OutsidePoint> base, std::span<const OutsidePoint> other,
                        double capacity_pct);

// One side's runs alone: how much of their log times' spread the
// covariates explain (explained, raw_sd, residual_sd; the effect is the
// mean, and means nothing here).
OutsideFit fit_spread(std::span<const OutsidePoint> runs, double capacity_pct);

}  // namespace contest
