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
// a term for its side, and the side's term is tested in Welch's form (each
// side's own residual variance), as the raw unpaired test is.
//
// Which covariates are used is decided before the effect is tested, from
// the time's relation to them alone: an F test of each slope at
// kExplainsLevel (outside_work.cpp), both where both pass (each beside the
// other). A slope is estimated in the effect's model where the observations
// allow (kMinRoundsForSlope per covariate); with fewer, the share's slope is
// the physics' 1 (used only where a slope estimated for the test has its
// sign) and the speed is not used (how a compile's time follows a loop's
// speed is not known in advance). Never chosen: the model whose effect test
// has the smaller spread. That choice, at 3 to 8 rounds with no effect,
// called 7 to 11% of the comparisons different at alpha 5%, and 28% of the
// net calls with a share that did not move the time
// (tests/simulations/sim_outside_rounds.cpp; the figures in docs/noise.md).
//
// The raw comparison stays beside it. A covariate is not used where it
// itself differs between the sides (the thing compared may be changing it:
// a scheduler patch that starves background work must not have its effect
// adjusted away; `sides_differ`), and the adjustment is refused, with why,
// where too few observations remain or the covariates explain no more of
// the spread than chance would.
//
// The outside share is what /proc/stat counts busy beyond the workload's,
// the load's and the probes' own CPU: it includes the kernel's interrupt,
// softirq and kernel-thread work, also what is done for the workload
// itself (its I/O's completions, writeback of its files), which the record
// cannot tell apart from another process's.
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
    // The same runs' logs summed with every sign +: across the rounds, how
    // the time follows the outside work apart from the contrast the effect
    // is tested on (with equal noise in every run the two are independent,
    // so deciding on the one does not bias the test on the other).
    double total_log_time = 0, total_log_left = 0;
    std::optional<double> total_log_unit;
};

inline constexpr std::size_t kMinRoundsForAdjustment = 3;
// Observations per estimated slope, beyond the effect's own: 4 degrees of
// freedom left with one covariate.
inline constexpr std::size_t kMinRoundsForSlope = 6;
// Below this share of its Time's spread explained, a label's note of what
// the busy machine cost is left out (the adjustment itself is decided by an
// F test, not by this).
inline constexpr double kMinExplained = 0.10;

struct OutsideFit {
    bool applied = false;
    std::string why_not;  // when not applied; also why a covariate was left out
    // Not applied because a covariate differs between the sides: then the
    // raw test is moved by it, and the net test may take out the compared
    // thing's own effect; under --adjust outside neither is a verdict.
    bool sides_differ = false;
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
