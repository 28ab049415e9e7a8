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

// The p-quantile of the chi-squared distribution with df degrees of freedom.
double chi_squared_quantile(double p, double df);

// The two-sided p of Student's t with df degrees of freedom; NaN where
// either is unusable, 0 for an infinite t.
double t_test_p(double t, double df);

// The upper-tail p of Fisher's F with (df1, df2) degrees of freedom: does
// adding df1 terms to a least-squares fit explain more than chance would?
// NaN where a figure is unusable.
double f_test_p(double f, double df1, double df2);

// Half-width of the two-sided `level` confidence interval of the mean.
double confidence_half_width(const Summary& s, double level);

struct WelchResult {
    double t = 0;   // (mean(a) - mean(b)) / standard error of the difference
    double df = 0;  // Welch-Satterthwaite degrees of freedom
    double p = 1;   // two-sided
    double se =
        0;  // the standard error of the difference (of the mean, one-sample); 0 without spread
};

// A spread this small relative to the mean (sd / |mean|) is no spread: it is
// the rounding of the figures, and a t built on it would be huge and mean
// nothing.
inline constexpr double kZeroSpread = 1e-9;

// Welch's unequal-variances t-test. nullopt when either side has fewer than
// two values. Two samples without any spread (kZeroSpread): p = 1 when the
// means agree and p = 0 when they differ (t is infinite). Never throws, also
// on values near the largest double.
std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b);

// One-sample t-test of mean(x) = 0: the paired t-test, on the differences
// (or log-ratios) of the pairs. nullopt below two values. Zero spread: sd
// below kZeroSpread times max(|mean|, 1), as for log-ratios.
std::optional<WelchResult> one_sample_t_test(std::span<const double> x);

// The smallest true difference, in standard errors, that a two-sided t-test
// at `level` with `df` degrees of freedom finds with probability `power`:
// the noncentrality at which the noncentral t's mass beyond both critical
// values is `power`, solved by bisection. NaN when df or level is unusable.
double detectable_shift_in_se(double df, double level, double power);

struct SignedRankResult {
    double v = 0;        // sum of the ranks of the positive differences
    double z = 0;        // normal deviate (0 when exact)
    double p = 1;        // two-sided
    bool exact = false;  // from the exact distribution (no ties, no zeros, < 50 pairs)
    std::size_t n = 0;   // pairs used (zero differences dropped)
};

// Wilcoxon's signed-rank test of the pairs' differences (what R's
// wilcox.test(paired = TRUE) computes: zeros dropped, exact below 50 pairs
// without ties, else the normal approximation with tie and continuity
// corrections). An infinite difference (a timed-out run) ranks above every
// finite one. nullopt when no difference is non-zero.
std::optional<SignedRankResult> wilcoxon_signed_rank(std::span<const double> d);

struct MannWhitneyResult {
    double u = 0;  // U of the first sample: rank sum of a - n_a (n_a + 1) / 2
    double z = 0;  // normal deviate, continuity- and tie-corrected
    double p = 1;  // two-sided
};

// Mann-Whitney U (Wilcoxon rank-sum) test by the normal approximation, with
// the variance corrected for ties and a continuity correction of 1/2 (what R's
// wilcox.test(exact = FALSE) computes). nullopt when either side is empty.
// +infinity (a timed-out run) ranks above every finite value.
std::optional<MannWhitneyResult> mann_whitney_u(std::span<const double> a,
                                                std::span<const double> b);

}  // namespace contest::stats
