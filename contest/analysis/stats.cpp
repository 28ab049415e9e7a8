#include "contest/analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/tools/toms748_solve.hpp>

namespace contest::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The largest magnitude in x, so sums of values near the largest double can
// be taken on x / scale without overflowing.
double scale_of(std::span<const double> x) {
    double scale = 0;
    for (double v : x)
        if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
    return scale > 0 ? scale : 1;
}

double mean_of(std::span<const double> x) {
    const double scale = scale_of(x);
    double sum = 0;
    for (double v : x) sum += v / scale;
    return sum / static_cast<double>(x.size()) * scale;
}

// Sample variance by two passes: the one-pass formula loses every digit when
// run times are large and close together, which is exactly our case. Its
// square root is what callers need, and that is taken on the scaled sum, so
// a spread near the largest double stays finite.
double sd_of(std::span<const double> x, double mean) {
    const double scale = scale_of(x);
    double sum_sq = 0;
    for (double v : x) sum_sq += (v / scale - mean / scale) * (v / scale - mean / scale);
    return std::sqrt(sum_sq / static_cast<double>(x.size() - 1)) * scale;
}

bool zero_spread(double sd, double mean) {
    return !(sd > kZeroSpread * std::fabs(mean));
}

// Boost.Math throws on a NaN or non-positive df; a p-value we cannot compute
// is NaN ("-" in the tables), never an exception out of a report.
double two_sided_t_p(double t, double df) {
    if (std::isnan(t) || !(df > 0) || !std::isfinite(df)) return kNaN;
    if (std::isinf(t)) return 0;
    boost::math::students_t dist(df);
    return std::min(1.0, 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t))));
}

double two_sided_normal_p(double z) {
    if (std::isnan(z)) return kNaN;
    if (std::isinf(z)) return 0;
    boost::math::normal standard_normal;
    return std::min(1.0,
                    2 * boost::math::cdf(boost::math::complement(standard_normal, std::fabs(z))));
}

}  // namespace

Summary summarize(std::span<const double> sample) {
    Summary s;
    s.n = sample.size();
    if (sample.empty()) {
        s.mean = s.median = s.sd = s.min = s.max = s.cv = s.ci95_half = kNaN;
        return s;
    }
    std::vector<double> sorted(sample.begin(), sample.end());
    std::sort(sorted.begin(), sorted.end());
    s.min = sorted.front();
    s.max = sorted.back();
    const std::size_t mid = sorted.size() / 2;
    s.median = sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    s.mean = mean_of(sample);
    s.sd = s.n >= 2 ? sd_of(sample, s.mean) : kNaN;
    s.cv = (s.n >= 2 && s.mean != 0) ? s.sd / std::fabs(s.mean) : kNaN;
    s.ci95_half = confidence_half_width(s, 0.95);
    return s;
}

double t_test_p(double t, double df) {
    return two_sided_t_p(t, df);
}

double f_test_p(double f, double df1, double df2) {
    if (!(df1 > 0) || !(df2 > 0) || !std::isfinite(df1) || !std::isfinite(df2) || std::isnan(f))
        return kNaN;
    if (f <= 0) return 1;
    if (std::isinf(f)) return 0;
    return boost::math::cdf(boost::math::complement(boost::math::fisher_f(df1, df2), f));
}

double chi_squared_quantile(double p, double df) {
    if (!(df > 0) || !std::isfinite(df) || !(p > 0 && p < 1)) return kNaN;
    return boost::math::quantile(boost::math::chi_squared(df), p);
}

double t_quantile(double p, double df) {
    if (!(df > 0) || !std::isfinite(df) || !(p > 0 && p < 1)) return kNaN;
    return boost::math::quantile(boost::math::students_t(df), p);
}

double confidence_half_width(const Summary& s, double level) {
    if (s.n < 2) return kNaN;
    const double df = static_cast<double>(s.n - 1);
    return t_quantile(1 - (1 - level) / 2, df) * s.sd / std::sqrt(static_cast<double>(s.n));
}

std::optional<WelchResult> welch_t_test(std::span<const double> a, std::span<const double> b) {
    if (a.size() < 2 || b.size() < 2) return std::nullopt;
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    const double mean_a = mean_of(a), mean_b = mean_of(b);
    const double sd_a = sd_of(a, mean_a), sd_b = sd_of(b, mean_b);
    WelchResult r;
    if (zero_spread(sd_a, mean_a) && zero_spread(sd_b, mean_b)) {
        const bool same = zero_spread(std::fabs(mean_a - mean_b) / 2, (mean_a + mean_b) / 2);
        r.t = same ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mean_a - mean_b);
        r.df = na + nb - 2;
        r.p = same ? 1 : 0;
        r.se = 0;
        return r;
    }
    // On a common scale, so the squares of values near the largest double
    // stay finite; t and df do not depend on the scale.
    const double scale = std::max({std::fabs(mean_a), std::fabs(mean_b), sd_a, sd_b});
    const double va = sd_a / scale, vb = sd_b / scale;
    const double se2_a = va * va / na, se2_b = vb * vb / nb, se2 = se2_a + se2_b;
    r.t = (mean_a / scale - mean_b / scale) / std::sqrt(se2);
    r.df = se2 * se2 / (se2_a * se2_a / (na - 1) + se2_b * se2_b / (nb - 1));
    r.p = two_sided_t_p(r.t, r.df);
    r.se = std::sqrt(se2) * scale;
    return r;
}

std::optional<WelchResult> one_sample_t_test(std::span<const double> x) {
    if (x.size() < 2) return std::nullopt;
    const double n = static_cast<double>(x.size());
    const double mean = mean_of(x), sd = sd_of(x, mean);
    WelchResult r;
    r.df = n - 1;
    // Log-ratios: a spread of 1e-9 is a relative spread of 1e-9 of the ratio.
    if (!(sd > kZeroSpread * std::max(std::fabs(mean), 1.0))) {
        r.t = mean == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mean);
        r.p = mean == 0 ? 1 : 0;
        r.se = 0;
        return r;
    }
    r.se = sd / std::sqrt(n);
    r.t = mean / r.se;
    r.p = two_sided_t_p(r.t, r.df);
    return r;
}

namespace {

// In double: long double (Boost's default) triples the cost of a report's
// MDEs and changes nothing shown.
using InDouble = boost::math::policies::policy<boost::math::policies::promote_float<false>,
                                               boost::math::policies::promote_double<false>>;

double solve_detectable_shift(double df, double level, double power) {
    const double critical = t_quantile(1 - level / 2, df);
    // Both tails count: a test finds a difference when |t| is beyond the
    // critical value, whichever way it points.
    auto power_at = [&](double delta) {
        boost::math::non_central_t_distribution<double, InDouble> dist(df, delta);
        return boost::math::cdf(boost::math::complement(dist, critical)) +
               boost::math::cdf(dist, -critical);
    };
    double low = 0, high = 1;
    // One degree of freedom at a Holm step of a large family needs a shift
    // of hundreds of standard errors; past this it is "nothing detectable".
    constexpr double kLargestShift = 1e6;
    while (power_at(high) < power) {
        low = high;
        high *= 2;
        if (high > kLargestShift) return std::numeric_limits<double>::infinity();
    }
    // No shift at all has the power of the level: a power asked below it
    // is had for nothing.
    if (power_at(0) >= power) return 0;
    // TOMS 748 takes about 8 steps to a relative 1e-12 where bisection took
    // 20 to 1e-6; the upper end, as the shift that has the power.
    std::uintmax_t steps = 60;
    const auto bracket = boost::math::tools::toms748_solve(
        [&](double delta) { return power_at(delta) - power; }, low, high,
        boost::math::tools::eps_tolerance<double>(40), steps);
    return bracket.second;
}

}  // namespace

double detectable_shift_in_se(double df, double level, double power) {
    if (!(df > 0) || !std::isfinite(df) || !(level > 0 && level < 1) || !(power > 0 && power < 1))
        return kNaN;
    // A report asks for the same few (df, level) again and again: one per
    // Holm step and number of runs, for every load and label.
    thread_local std::map<std::tuple<double, double, double>, double> solved;
    const auto key = std::make_tuple(df, level, power);
    if (const auto it = solved.find(key); it != solved.end()) return it->second;
    if (solved.size() >= 4096) solved.clear();
    const double shift = solve_detectable_shift(df, level, power);
    solved.emplace(key, shift);
    return shift;
}

namespace {

// Average ranks (1-based) of `values` sorted ascending, and the tie term
// sum(t^3 - t) over groups of equal values.
struct Ranks {
    std::vector<double> rank;  // for sorted position i
    double tie_term = 0;
};

Ranks average_ranks(const std::vector<double>& sorted) {
    Ranks r;
    r.rank.resize(sorted.size());
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
        const double shared = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        for (std::size_t k = i; k < j; ++k) r.rank[k] = shared;
        const double t = static_cast<double>(j - i);
        r.tie_term += t * t * t - t;
        i = j;
    }
    return r;
}

// P(V <= v) under the null for n pairs without ties: counts of the subsets
// of {1..n} by their sum.
double signed_rank_cdf(std::size_t n, double v) {
    const std::size_t max_sum = n * (n + 1) / 2;
    std::vector<double> count(max_sum + 1, 0);
    count[0] = 1;
    for (std::size_t k = 1; k <= n; ++k)
        for (std::size_t s = max_sum; s >= k; --s) count[s] += count[s - k];
    double below = 0;
    for (std::size_t s = 0; s <= max_sum && static_cast<double>(s) <= v + 1e-9; ++s)
        below += count[s];
    return below / std::ldexp(1.0, static_cast<int>(n));
}

}  // namespace

std::optional<SignedRankResult> wilcoxon_signed_rank(std::span<const double> d) {
    struct Pair {
        double magnitude;
        bool positive;
    };
    std::vector<Pair> pairs;
    for (double v : d)
        if (v != 0 && !std::isnan(v)) pairs.push_back({std::fabs(v), v > 0});
    if (pairs.empty()) return std::nullopt;
    std::sort(pairs.begin(), pairs.end(),
              [](const Pair& a, const Pair& b) { return a.magnitude < b.magnitude; });
    std::vector<double> magnitudes;
    for (const auto& p : pairs) magnitudes.push_back(p.magnitude);
    const Ranks ranks = average_ranks(magnitudes);
    SignedRankResult r;
    r.n = pairs.size();
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (pairs[i].positive) r.v += ranks.rank[i];
    const double n = static_cast<double>(r.n);
    const double mean_v = n * (n + 1) / 4;
    if (ranks.tie_term == 0 && r.n < 50) {
        r.exact = true;
        // The null distribution is symmetric: P(V >= v) = P(V <= n(n+1)/2 - v).
        const double lower = signed_rank_cdf(r.n, r.v);
        const double upper = signed_rank_cdf(r.n, n * (n + 1) / 2 - r.v);
        r.p = std::min(1.0, 2 * std::min(lower, upper));
        return r;
    }
    const double var_v = n * (n + 1) * (2 * n + 1) / 24 - ranks.tie_term / 48;
    if (var_v <= 0) return r;
    const double diff = r.v - mean_v;
    const double continuity = diff > 0 ? 0.5 : (diff < 0 ? -0.5 : 0);
    r.z = (diff - continuity) / std::sqrt(var_v);
    r.p = two_sided_normal_p(r.z);
    return r;
}

std::optional<MannWhitneyResult> mann_whitney_u(std::span<const double> a,
                                                std::span<const double> b) {
    if (a.empty() || b.empty()) return std::nullopt;
    struct Ranked {
        double value;
        bool from_a;
    };
    std::vector<Ranked> pooled;
    for (double v : a) pooled.push_back({v, true});
    for (double v : b) pooled.push_back({v, false});
    std::sort(pooled.begin(), pooled.end(),
              [](const Ranked& x, const Ranked& y) { return x.value < y.value; });

    // Tied values share the mean of the ranks they span; each tie group of
    // size t takes (t^3 - t) off the variance of U.
    const double n = static_cast<double>(pooled.size());
    double rank_sum_a = 0, tie_term = 0;
    for (std::size_t i = 0; i < pooled.size();) {
        std::size_t j = i;
        while (j < pooled.size() && pooled[j].value == pooled[i].value) ++j;
        const double shared_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
        for (std::size_t k = i; k < j; ++k)
            if (pooled[k].from_a) rank_sum_a += shared_rank;
        const double t = static_cast<double>(j - i);
        tie_term += t * t * t - t;
        i = j;
    }
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    MannWhitneyResult r;
    r.u = rank_sum_a - na * (na + 1) / 2;
    const double mean_u = na * nb / 2;
    const double var_u = na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
    if (var_u <= 0) {  // every value tied: no evidence of any difference
        r.z = 0;
        r.p = 1;
        return r;
    }
    const double diff = r.u - mean_u;
    const double continuity = diff > 0 ? 0.5 : (diff < 0 ? -0.5 : 0);
    r.z = (diff - continuity) / std::sqrt(var_u);
    r.p = two_sided_normal_p(r.z);
    return r;
}

}  // namespace contest::stats
