#include "contest/report/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace contest::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean_of(std::span<const double> x) {
    return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
}

// Sample variance by two passes: the one-pass formula loses every digit when
// run times are large and close together, which is exactly our case.
double variance_of(std::span<const double> x, double mean) {
    double sum_sq = 0;
    for (double v : x) sum_sq += (v - mean) * (v - mean);
    return sum_sq / static_cast<double>(x.size() - 1);
}

double two_sided_t_p(double t, double df) {
    boost::math::students_t dist(df);
    return 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
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
    s.sd = s.n >= 2 ? std::sqrt(variance_of(sample, s.mean)) : kNaN;
    s.cv = (s.n >= 2 && s.mean != 0) ? s.sd / std::fabs(s.mean) : kNaN;
    s.ci95_half = confidence_half_width(s, 0.95);
    return s;
}

double t_quantile(double p, double df) {
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
    const double se2_a = variance_of(a, mean_a) / na, se2_b = variance_of(b, mean_b) / nb;
    const double se2 = se2_a + se2_b;
    WelchResult r;
    if (se2 == 0) {
        const bool same = mean_a == mean_b;
        r.t = same ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mean_a - mean_b);
        r.df = na + nb - 2;
        r.p = same ? 1 : 0;
        return r;
    }
    r.t = (mean_a - mean_b) / std::sqrt(se2);
    r.df = se2 * se2 / (se2_a * se2_a / (na - 1) + se2_b * se2_b / (nb - 1));
    r.p = two_sided_t_p(r.t, r.df);
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
    boost::math::normal standard_normal;
    r.p = std::min(1.0,
                   2 * boost::math::cdf(boost::math::complement(standard_normal, std::fabs(r.z))));
    return r;
}

}  // namespace contest::stats
