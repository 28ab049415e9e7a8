#include "contest/analysis/outside_work.h"

#include <cmath>
#include <vector>

#include "contest/analysis/stats.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

// The outside work is said to differ between the labels when a paired test
// of the two sides' shares finds it at this level: then adjusting would
// take out what the compared thing may itself have done.
constexpr double kOutsideDiffersLevel = 0.05;
// Below this share of the spread explained, the adjustment is noise.
constexpr double kMinExplained = 0.10;

double variance(std::span<const double> v) {
    const auto s = stats::summarize(v);
    return s.n > 1 ? s.sd * s.sd : NAN;
}

OutsideAdjustment refused(std::size_t rounds, std::string why) {
    OutsideAdjustment a;
    a.rounds = rounds;
    a.why_not = std::move(why);
    return a;
}

}  // namespace

OutsideAdjustment adjust_for_outside_work(std::span<const OutsideRound> rounds, double capacity_pct,
                                          double level) {
    const std::size_t n = rounds.size();
    if (n < kMinRoundsForAdjustment)
        return refused(n, std::to_string(n) + " shared rounds; the adjustment needs " +
                              std::to_string(kMinRoundsForAdjustment));
    std::vector<double> d, x, outside_diff;
    for (const auto& r : rounds) {
        const double left_base = capacity_pct - r.base_outside_pct;
        const double left_new = capacity_pct - r.new_outside_pct;
        if (!(r.base_s > 0 && r.new_s > 0 && left_base > 0 && left_new > 0))
            return refused(n, "a round without a time or with no share of the machine left");
        d.push_back(std::log(r.new_s / r.base_s));
        x.push_back(std::log(left_new / left_base));
        outside_diff.push_back(r.new_outside_pct - r.base_outside_pct);
    }
    if (const auto t = stats::one_sample_t_test(outside_diff); t && t->p < kOutsideDiffersLevel)
        return refused(n, "the outside work differs between the labels (p = " + fixed(t->p, 3) +
                              "): the compared thing may be changing it");

    OutsideAdjustment a;
    a.rounds = n;
    const double raw_var = variance(d);
    std::vector<double> adjusted(n);
    const double xm = stats::summarize(x).mean;
    double sxx = 0, sxd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxx += (x[i] - xm) * (x[i] - xm);
        sxd += (x[i] - xm) * d[i];
    }
    double se = 0;
    if (n >= kMinRoundsForSlope && sxx > 0) {
        // Least squares of d on x: d = a + c x, slope b = -c.
        const double c = sxd / sxx;
        const double dm = stats::summarize(d).mean;
        const double intercept = dm - c * xm;
        double rss = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double e = d[i] - intercept - c * x[i];
            rss += e * e;
            adjusted[i] = d[i] - c * x[i];
        }
        a.df = static_cast<double>(n) - 2;
        const double s2 = rss / a.df;
        se = std::sqrt(s2 * (1.0 / n + xm * xm / sxx));
        a.slope = -c;
        a.slope_estimated = true;
        a.effect_pct = 100 * (std::exp(intercept) - 1);
        a.explained = raw_var > 0 ? 1 - s2 / raw_var : 0;
        const double t = se > 0 ? intercept / se : 0;
        a.p = se > 0 ? stats::t_test_p(t, a.df) : 1;
        const double half = stats::t_quantile(1 - level / 2, a.df) * se;
        a.ci95_low_pct = 100 * (std::exp(intercept - half) - 1);
        a.ci95_high_pct = 100 * (std::exp(intercept + half) - 1);
    } else {
        // Too few rounds to estimate the slope: the physics' 1.
        for (std::size_t i = 0; i < n; ++i) adjusted[i] = d[i] + x[i];
        const auto t = stats::one_sample_t_test(adjusted);
        if (!t) return refused(n, "no spread to test");
        const double mean = stats::summarize(adjusted).mean;
        a.df = t->df;
        se = t->se;
        a.p = t->p;
        a.effect_pct = 100 * (std::exp(mean) - 1);
        const double adjusted_var = variance(adjusted);
        a.explained = raw_var > 0 ? 1 - adjusted_var / raw_var : 0;
        const double half = stats::t_quantile(1 - level / 2, a.df) * se;
        a.ci95_low_pct = 100 * (std::exp(mean - half) - 1);
        a.ci95_high_pct = 100 * (std::exp(mean + half) - 1);
    }
    a.mde_pct = 100 * (std::exp(stats::detectable_shift_in_se(a.df, level, 0.8) * se) - 1);
    if (!(a.explained >= kMinExplained)) {
        OutsideAdjustment none = refused(n, "the outside work explains none of the spread");
        none.explained = a.explained;
        return none;
    }
    a.applied = true;
    return a;
}

}  // namespace contest
