#include "contest/analysis/local_level.h"

#include <algorithm>
#include <cmath>

namespace contest {

FilteredLevels filter_levels(std::span<const double> y, double ratio) {
    FilteredLevels f;
    double level = 0, var = 0;
    for (std::size_t t = 0; t < y.size(); ++t) {
        if (t == 0) {
            level = y[0];
            var = 1;
        } else {
            const double predicted = var + ratio, gain = predicted / (predicted + 1);
            level += gain * (y[t] - level);
            var = predicted * (1 - gain);
        }
        f.level.push_back(level);
        f.var.push_back(var);
    }
    return f;
}

namespace {

// The log-likelihood with point_var taken at its best for this ratio: the
// sum of the squared one-step errors over their variances (S) and of the
// logs of those variances, over m errors.
struct Profile {
    double loglik = -INFINITY, point_var = 0;
};

Profile profile(std::span<const double> y, std::size_t restart, double ratio) {
    double sum_sq = 0, sum_log = 0, m = 0;
    double level = 0, var = 0;
    for (std::size_t t = 0; t < y.size(); ++t) {
        if (t == 0 || t == restart) {
            level = y[t];
            var = 1;
            continue;
        }
        const double predicted = var + ratio, f = predicted + 1, e = y[t] - level;
        sum_sq += e * e / f;
        sum_log += std::log(f);
        m += 1;
        level += predicted / f * e;
        var = predicted / f;
    }
    Profile p;
    if (m < 1) return p;
    p.point_var = sum_sq / m;
    p.loglik = p.point_var > 0 ? -0.5 * (sum_log + m * std::log(p.point_var)) : INFINITY;
    return p;
}

}  // namespace

LocalLevel fit_local_level(std::span<const double> y, std::size_t restart, double floor_var) {
    // The ratio on a grid, none and then 1e-4 to 100 by factors of 1.25,
    // refined by halving the factor about the best, twice.
    double best_ratio = 0;
    Profile best = profile(y, restart, 0);
    for (double r = 1e-4; r <= 100; r *= 1.25) {
        const Profile p = profile(y, restart, r);
        if (p.loglik > best.loglik) best = p, best_ratio = r;
    }
    for (double factor : {1.12, 1.06})
        for (double r : {best_ratio / factor, best_ratio * factor}) {
            if (!(r > 0)) continue;
            const Profile p = profile(y, restart, r);
            if (p.loglik > best.loglik) best = p, best_ratio = r;
        }
    // A walk the likelihood does not prefer clearly (twice its gain below
    // the 5% point of the boundary's chi-squared mixture, 2.71) is taken as
    // none: a small walk fitted to noise would spread a step's evidence over
    // a few kernels and halve the power to see it on a quiet machine.
    const Profile none = profile(y, restart, 0);
    if (2 * (best.loglik - none.loglik) < kWalkEvidence) best = none, best_ratio = 0;
    LocalLevel out;
    out.point_var = std::max(best.point_var, floor_var);
    out.walk_var = best_ratio * best.point_var;
    return out;
}

StepScan scan_steps(std::span<const double> y, std::size_t min_segment, double floor_var) {
    const std::size_t n = y.size();
    StepScan out;
    if (min_segment < 1 || n < 2 * min_segment || n < 3) return out;
    const double m = double(n) - 1;  // one-step errors: the first point has none
    const std::vector<double> reversed(y.rbegin(), y.rend());
    // For each ratio: the no-step fit's sum of squared errors over their
    // variances (s0) and of those variances' logs; at each split, the
    // step's estimate from the filters run towards it from either side,
    // and the step's fit as s0 less the step's share, estimate^2 over its
    // variance (least squares with the step one more regressor).
    double best_none = -INFINITY;
    std::vector<double> best_step(n, -INFINITY), best_ratio(n, 0);
    std::vector<bool> exact_at(n, false);
    std::vector<double> ratios{0};
    for (double r = 1e-4; r <= 100; r *= 1.25) ratios.push_back(r);
    for (double r : ratios) {
        const FilteredLevels f = filter_levels(y, r), b = filter_levels(reversed, r);
        double s0 = 0, sum_log = 0;
        for (std::size_t t = 1; t < n; ++t) {
            const double var = f.var[t - 1] + r + 1, e = y[t] - f.level[t - 1];
            s0 += e * e / var;
            sum_log += std::log(var);
        }
        if (!(s0 > 0)) continue;
        best_none = std::max(best_none, -0.5 * (sum_log + m * std::log(s0 / m)));
        for (std::size_t k = min_segment; k + min_segment <= n; ++k) {
            const double step = b.level[n - 1 - k] - f.level[k - 1];
            const double var = f.var[k - 1] + b.var[n - 1 - k] + r;
            const double s1 = std::max(s0 - step * step / var, s0 * 1e-12);
            const double loglik = -0.5 * (sum_log + m * std::log(s1 / m));
            // A step that leaves nothing to explain (the points agree
            // exactly on each side) does so at every walk, and the floored
            // fit's likelihood then only follows s0 down as the walk grows:
            // nothing chooses a walk, so the smallest is kept (the first).
            const bool exact = s1 <= s0 * 1e-12;
            if (exact_at[k]) continue;
            if (exact) exact_at[k] = true;
            if (exact || loglik > best_step[k]) best_step[k] = loglik, best_ratio[k] = r;
        }
    }
    if (!std::isfinite(best_none)) return out;  // every point the same
    for (std::size_t k = min_segment; k + min_segment <= n; ++k) {
        const double lr = 2 * (best_step[k] - best_none);
        if (out.at == 0 || lr > out.lr) out.at = k, out.lr = lr;
    }
    // The step at the split chosen, at its ratio; its variance from the
    // fit's, at least what the runs alone give.
    const double r = best_ratio[out.at];
    const FilteredLevels f = filter_levels(y, r), b = filter_levels(reversed, r);
    const std::size_t k = out.at;
    out.ratio = r;
    out.before = f.level[k - 1];
    out.step = b.level[n - 1 - k] - out.before;
    out.df = m - 1;
    const double var_units = f.var[k - 1] + b.var[n - 1 - k] + r;
    double s1 = 0;
    {
        // The step's fit's sum of squares at r, for its point variance.
        double s0 = 0;
        for (std::size_t t = 1; t < n; ++t) {
            const double e = y[t] - f.level[t - 1];
            s0 += e * e / (f.var[t - 1] + r + 1);
        }
        s1 = std::max(0.0, s0 - out.step * out.step / var_units);
    }
    out.point_var = std::max(s1 / out.df, floor_var);
    out.se = std::sqrt(out.point_var * var_units);
    // The likelihood ratio as the t it would be with the ratio known, and
    // no larger than the step over its floored standard error.
    const double t_lr = std::sqrt(std::max(0.0, out.df * std::expm1(std::max(0.0, out.lr) / m)));
    const double t_wald = out.se > 0 ? std::fabs(out.step) / out.se : INFINITY;
    out.t = std::copysign(std::min(t_lr, t_wald), out.step);
    return out;
}

}  // namespace contest
