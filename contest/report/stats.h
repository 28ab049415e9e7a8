#pragma once
// Descriptive statistics and two-sample tests for comparing kernels. The
// distributions come from Boost.Math; nothing here hand-rolls a special
// function. Figures that are undefined for the sample at hand (the standard
// deviation of one run, a test with too few runs) are NaN or nullopt, so the
// formatters can print "-" instead of a made-up number.
#include <cstddef>
#include <optional>
#include <span>

namespace contest::stats {

struct Summary {
    std::size_t n = 0;
    double mean = 0, median = 0;
    double sd = 0;  // sample standard deviation (n - 1); NaN when n < 2
    double min = 0, max = 0;
    double cv = 0;         // sd / mean, as a fraction; NaN when undefined
    double ci95_half = 0;  // half-width of the 95% CI of the mean (Student t); NaN when n < 2
};

// All NaN (and n = 0) for an empty sample.
Summary summarize(std::span<const double> sample);

// The p-quantile of Student's t with df degrees of freedom (df may be
// fractional, as Welch's is).
double t_quantile(double p, double df);

// Half-width of the two-sided `level` confidence interval of the mean.
double confidence_half_width(const Summary& s, double level);

struct WelchResult {
    double t = 0;   // (mean(a) - mean(b)) / standard error of the difference
    double df = 0;  // Welch-Satterthwaite degrees of freedom
    double p = 1;   // two-sided
};

// Welch's unequal-variances t-test. nullopt when either side has fewer than
// two values. Two samples without any spread: p = 1 when the means agree and
// p = 0 when they differ (t is infinite).
std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b);

struct MannWhitneyResult {
    double u = 0;  // U of the first sample: rank sum of a - n_a (n_a + 1) / 2
    double z = 0;  // normal deviate, continuity- and tie-corrected
    double p = 1;  // two-sided
};

// Mann-Whitney U (Wilcoxon rank-sum) test by the normal approximation, with
// the variance corrected for ties and a continuity correction of 1/2 (what R's
// wilcox.test(exact = FALSE) computes). nullopt when either side is empty.
std::optional<MannWhitneyResult> mann_whitney_u(std::span<const double> a,
                                                std::span<const double> b);

}  // namespace contest::stats
