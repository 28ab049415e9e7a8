#pragma once
// Each level's noise in a run of --kernel guests (issue 59): how much of a
// measure's spread lies between boots of one kernel and how much between
// runs within one boot (--runs-per-boot), and where the next rounds are
// best spent, as Kalibera and Jones do ("Rigorous Benchmarking in
// Reasonable Time", ISMM 2013): the repetitions go to the level whose
// variance is large for what a repetition there costs.
//
// The model is the two-level random-effects one: run j of boot i is
//     y_ij = mu + b_i + e_ij,  b_i ~ (0, s_b^2),  e_ij ~ (0, s_w^2),
// all independent. s_b^2 and s_w^2 are estimated by the one-way ANOVA
// (method of moments; unbalanced boots through n0, the one-way
// classification of Searle, Casella and McCulloch, "Variance Components",
// chapter 3), s_b^2 truncated at 0.
//
// A boot of a round also ran at its own moment of the host, so "between
// boots" holds the host's drift between rounds as well as the boot's own
// spread: both are what another boot buys down.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"
#include "contest/result/result_file.h"

namespace contest {

struct LevelVariances {
    std::size_t boots = 0, runs = 0;  // the boots with a run, and their runs
    double mean = 0;
    double between_boot = 0;  // s_b^2: the spread of the boots' own means, >= 0
    double within_boot = 0;   // s_w^2: the spread of runs about their boot's mean
    // F = MSB / MSW on (boots - 1, runs - boots) degrees of freedom, and its
    // p (whether the boots differ more than their runs say); NaN when MSW is 0.
    double f = 0, p = 0;
    // s_b^2 / (s_b^2 + s_w^2); 0 when both are 0.
    double between_share() const;
};

// The variance components of runs grouped by boot (each inner list one
// boot's runs). Nullopt below two boots, or when no boot has two runs
// (the levels cannot be told apart then). Non-finite values are left out.
std::optional<LevelVariances> boot_run_variances(const std::vector<std::vector<double>>& by_boot);

// What one more repetition at each level costs, in seconds: a boot (up to
// its init: what a guest costs beyond its runs) and a run within one (one
// pass of the round's loads).
struct LevelCosts {
    double boot_s = 0, run_s = 0;
};

// The runs a boot that give the narrowest mean for the time, in the
// two-level model above. With n1 boots of n2 runs the mean's variance is
//     V = s_b^2 / n1 + s_w^2 / (n1 n2)
// and the time is T = n1 (c_boot + n2 c_run). For a target V, n1 =
// (s_b^2 + s_w^2 / n2) / V, so T = f(n2) / V with
//     f(n2) = (s_b^2 + s_w^2 / n2)(c_boot + n2 c_run)
//           = s_b^2 c_boot + s_w^2 c_run + n2 s_b^2 c_run + s_w^2 c_boot / n2,
// convex in n2 > 0, whose derivative s_b^2 c_run - s_w^2 c_boot / n2^2
// is 0 at
//     n2* = sqrt((c_boot / c_run) (s_w^2 / s_b^2)),
// Kalibera and Jones' optimal repetition count of the lower of two levels
// (the boot the upper, the run the lower; they round n2* up, where this
// takes whichever whole neighbour costs less). The same n2 minimises V
// for a given T. The count returned is the whole number of f's least
// value (f is convex: the floor or the ceiling of n2*), at
// least 1, at most `cap` (where s_b^2 is 0, another boot buys nothing the
// runs do not: the cap, `at_cap` said).
struct RunsPerBootAdvice {
    unsigned runs_per_boot = 1;
    double optimum = 1;  // n2* itself (infinity when s_b^2 is 0)
    bool at_cap = false;
};
inline constexpr unsigned kRunsPerBootCap = 50;
RunsPerBootAdvice advise_runs_per_boot(const LevelVariances& v, const LevelCosts& costs,
                                       unsigned cap = kRunsPerBootCap);

// f(n2) above over V's numerator: the time a given precision costs with
// n2 runs a boot, up to the factor 1/V (for comparing designs).
double two_level_cost(const LevelVariances& v, const LevelCosts& costs, double runs_per_boot);

// One label's level noise of one load's measure, from its files' runs that
// record their boot (RunRecord::boot).
struct LevelNoise {
    std::string label, load, measure;  // measure: "Time", "Loads", "p99 <probe>"
    LevelVariances variances;
};
std::vector<LevelNoise> level_noise_of(const std::vector<ResultFile>& files);

// What a label's boots and runs cost, read (untrusted) from its files'
// config.vm.boots[] (up_s, total_s) and config.vm.runs_per_boot: a boot
// the mean time to its init, a run the rest of the guest's time over its
// runs (its shutdown counted in: the advice then leans a little toward
// fewer runs a boot). Nullopt where the files hold no usable boot.
std::optional<LevelCosts> level_costs_of(const std::vector<ResultFile>& files,
                                         const std::string& label);

// The notes under the table: per label and load, each measure's shares
// between and within boots, and the advice on runs a boot; nothing for
// files whose boots ran one run each.
void note_level_noise(const std::vector<ResultFile>& files, ReportModel& model);

// Per guest label other than the baseline, load and measure (Time, Loads,
// each probe's p99): the share of the two labels' spread their rounds share
// (SharedNoiseRow), over at least 3 rounds both have; into model.shared_noise
// and one note per label and load. Only for --kernel guests' runs (they
// record their boot): what duet's one moment per round buys is read here.
void note_shared_noise(ReportModel& model);

}  // namespace contest
