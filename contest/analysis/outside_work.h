#pragma once
// A paired comparison with what other processes and the hypervisor took out
// of it. A compile that gets a smaller share of the machine takes longer in
// proportion, so per round the log time difference of the two labels is
// modelled as
//     log(t_new / t_base) = a - b * log(left_new / left_base)
// where left = capacity - outside (others' CPU and steal, in percent of one
// CPU; capacity = online CPUs x 100). a is the difference at equal outside
// work: the adjusted effect. b, the slope, is 1 in that physics; it is
// estimated by least squares where the rounds allow (kMinRoundsForSlope),
// else fixed at 1. The raw comparison stays beside it: the adjustment is
// refused, with why, where the outside work itself differs between the
// labels (the thing compared may be what changed it), where too few rounds
// remain, or where it explains none of the spread.
#include <cstddef>
#include <span>
#include <string>

namespace contest {

// One round in which both labels ran: their times and the outside work
// each run saw, in percent of one CPU (others_cpu_pct + steal_pct).
struct OutsideRound {
    double base_s = 0, new_s = 0;
    double base_outside_pct = 0, new_outside_pct = 0;
};

inline constexpr std::size_t kMinRoundsForAdjustment = 3;
inline constexpr std::size_t kMinRoundsForSlope = 6;

struct OutsideAdjustment {
    bool applied = false;
    std::string why_not;  // when not applied
    std::size_t rounds = 0;
    double effect_pct = 0;  // exp(a) - 1, in percent
    double ci95_low_pct = 0, ci95_high_pct = 0;
    double p = 1;  // two-sided, of a = 0
    double df = 0;
    double mde_pct = 0;  // the smallest |effect| found 4 times in 5 at `level`
    double slope = 1;
    bool slope_estimated = false;
    // The share of the raw paired differences' variance the outside work
    // explains (1 - adjusted residual variance / raw variance).
    double explained = 0;
};

// `capacity_pct`: online CPUs x 100; `level`: the test's two-sided level
// (the MDE's too).
OutsideAdjustment adjust_for_outside_work(std::span<const OutsideRound> rounds, double capacity_pct,
                                          double level = 0.05);

}  // namespace contest
