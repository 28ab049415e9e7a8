#include "contest/analysis/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "contest/analysis/local_level.h"
#include "contest/analysis/stats.h"

namespace contest {

namespace {

// The variance of a median of n runs, in units of one run's variance
// (normal runs: pi / 2 for many; its exact small-sample values below).
double median_variance_factor(std::size_t n) {
    switch (n) {
        case 0:
        case 1:
        case 2:
            return 1.0;  // one run, or the mean of two
        case 3:
            return 1.35;
        case 4:
            return 1.19;
        default:
            return 1.5708;
    }
}

struct Point {
    double level = 0;      // the runs' median (of logs, on the log scale)
    double floor_var = 0;  // the variance its median has from the runs' spread alone
};

struct LogSeries {
    std::vector<Point> points;
    bool logs = true;
};

// The runs' spread about their points' means, pooled over the series
// (each point's n - 1 degrees of freedom): a floor, so heavy tails only
// raise it.
double pooled_run_sd(const std::vector<std::vector<double>>& runs) {
    double ss = 0, df = 0;
    for (const auto& r : runs) {
        if (r.size() < 2) continue;
        const double m = std::accumulate(r.begin(), r.end(), 0.0) / double(r.size());
        for (double x : r) ss += (x - m) * (x - m);
        df += double(r.size() - 1);
    }
    return df > 0 ? std::sqrt(ss / df) : 0;
}

LogSeries levels_of(const std::vector<std::vector<double>>& points) {
    LogSeries s;
    for (const auto& p : points)
        for (double x : p)
            if (!(x > 0)) s.logs = false;
    std::vector<std::vector<double>> runs;
    for (const auto& p : points) {
        std::vector<double> r;
        for (double x : p)
            if (std::isfinite(x)) r.push_back(s.logs ? std::log(x) : x);
        runs.push_back(std::move(r));
    }
    const double sd = pooled_run_sd(runs);
    for (const auto& r : runs) {
        if (r.empty()) continue;
        s.points.push_back({stats::summarize(r).median,
                            sd * sd * median_variance_factor(r.size()) / double(r.size())});
    }
    return s;
}

struct Split {
    std::size_t at = 0;
    double t = 0, diff = 0, se = 0, df = 0, p = 1;
    double left_mean = 0;
};

// The split of [a, b) at k as Student's t on the points' levels.
Split test_split(const LogSeries& s, std::size_t a, std::size_t k, std::size_t b) {
    Split out;
    out.at = k;
    const double nl = double(k - a), nr = double(b - k);
    double ml = 0, mr = 0, floor_var = 0;
    for (std::size_t i = a; i < k; ++i) ml += s.points[i].level;
    for (std::size_t i = k; i < b; ++i) mr += s.points[i].level;
    ml /= nl;
    mr /= nr;
    double ss = 0;
    for (std::size_t i = a; i < b; ++i) {
        const double d = s.points[i].level - (i < k ? ml : mr);
        ss += d * d;
        floor_var += s.points[i].floor_var;
    }
    out.df = nl + nr - 2;
    const double var = std::max(out.df > 0 ? ss / out.df : 0.0, floor_var / double(b - a));
    out.se = std::sqrt(var * (1 / nl + 1 / nr));
    out.diff = mr - ml;
    out.left_mean = ml;
    if (out.se > 0) {
        out.t = out.diff / out.se;
        out.p = out.df > 0 ? stats::t_test_p(out.t, out.df) : 1;
    } else {
        out.t = out.diff == 0 ? 0 : INFINITY;
        out.p = out.diff == 0 ? 1 : 0;
    }
    return out;
}

// The best split of [a, b) with the machine's drift (local_level.h): the
// likeliest step against a random walk fitted with it and without it.
Split best_drift_split(const LogSeries& s, std::size_t a, std::size_t b, std::size_t m) {
    std::vector<double> y;
    double floor_var = 0;
    for (std::size_t i = a; i < b; ++i) {
        y.push_back(s.points[i].level);
        floor_var += s.points[i].floor_var / double(b - a);
    }
    const StepScan scan = scan_steps(y, m, floor_var);
    Split out;
    out.at = a + scan.at;
    out.t = scan.t;
    out.diff = scan.step;
    out.se = scan.se;
    out.df = scan.df;
    out.left_mean = scan.before;
    out.p = out.df > 0 ? stats::t_test_p(out.t, out.df) : 1;
    return out;
}

// The variance a random walk of step variance 1 gives the difference of
// the means of l points and the r points after them: each step before the
// split moves the right part wholly and the left part by the share of its
// points after the step; each step after, the right part by its share.
double walk_factor(double l, double r) {
    return (l + 1) * (2 * l + 1) / (6 * l) + (r - 1) * (2 * r - 1) / (6 * r);
}

std::vector<double> before_levels(const LogSeries& s, std::size_t k) {
    std::vector<double> y;
    for (std::size_t i = 0; i < k; ++i) y.push_back(s.points[i].level);
    return y;
}

double relative_change(const LogSeries& s, double left_mean, double diff) {
    if (s.logs) return std::expm1(diff);
    return left_mean != 0 ? diff / std::fabs(left_mean) : 0;
}

void split_segment(const LogSeries& s, std::size_t a, std::size_t b, const ChangePointOptions& o,
                   std::vector<ChangePoint>& out) {
    const std::size_t m = o.min_segment < 1 ? 1 : o.min_segment;
    if (b - a < 2 * m) return;
    const std::size_t tried = b - a - 2 * m + 1;
    Split best;
    if (o.drift) {
        best = best_drift_split(s, a, b, m);
    } else {
        for (std::size_t k = a + m; k + m <= b; ++k) {
            const Split sp = test_split(s, a, k, b);
            if (k == a + m || std::fabs(sp.t) > std::fabs(best.t)) best = sp;
        }
    }
    const double p = std::min(1.0, best.p * double(tried));
    const double change = relative_change(s, best.left_mean, best.diff);
    if (!(p < o.alpha) || std::fabs(change) < o.min_change) return;
    split_segment(s, a, best.at, o, out);
    ChangePoint c;
    c.index = best.at;
    c.change = change;
    c.p = p;
    c.t = best.t;
    c.before = best.at - a;
    c.after = b - best.at;
    const double q = best.df > 0 ? stats::t_quantile(0.5 + o.level / 2, best.df) : INFINITY;
    c.low = relative_change(s, best.left_mean, best.diff - q * best.se);
    c.high = relative_change(s, best.left_mean, best.diff + q * best.se);
    out.push_back(c);
    split_segment(s, best.at, b, o, out);
}

}  // namespace

std::vector<ChangePoint> find_change_points(const std::vector<std::vector<double>>& points,
                                            const ChangePointOptions& options) {
    const LogSeries s = levels_of(points);
    std::vector<ChangePoint> out;
    split_segment(s, 0, s.points.size(), options, out);
    return out;
}

SeriesDrift series_drift(const std::vector<std::vector<double>>& points) {
    const LogSeries s = levels_of(points);
    std::vector<double> y;
    double floor_var = 0;
    for (const Point& p : s.points) {
        y.push_back(p.level);
        floor_var += p.floor_var / double(s.points.size());
    }
    const LocalLevel m = fit_local_level(y, y.size(), floor_var);
    return {std::sqrt(m.point_var), std::sqrt(m.walk_var)};
}

std::optional<ChangePoint> head_change(const std::vector<std::vector<double>>& points,
                                       const ChangePointOptions& o) {
    const LogSeries s = levels_of(points);
    const std::size_t n = s.points.size();
    std::optional<ChangePoint> found;
    for (std::size_t newest = 1; newest <= 2; ++newest) {
        if (n < kHeadBefore + newest) continue;
        const std::size_t k = n - newest;
        const double nl = double(k), nr = double(newest);
        double ml = 0, mr = 0, floor_var = 0;
        for (std::size_t i = 0; i < n; ++i) (i < k ? ml : mr) += s.points[i].level;
        ml /= nl;
        mr /= nr;
        double ss = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double d = s.points[i].level - (i < k ? ml : mr);
            ss += d * d;
            floor_var += s.points[i].floor_var / double(n);
        }
        const double df = double(n) - 2;
        // The kernels' spread about the two parts, floored by what their
        // runs imply; with a longer past, its drift as the series' body sees it.
        double point_var = std::max(ss / df, floor_var), walk_var = 0;
        if (o.drift && k >= kDriftPoints) {
            const std::vector<double> y = before_levels(s, k);
            const LocalLevel d = fit_local_level(y, y.size(), floor_var);
            point_var = std::max(point_var, d.point_var);
            walk_var = d.walk_var;
        }
        const double se = std::sqrt(point_var * (1 / nl + 1 / nr) + walk_var * walk_factor(nl, nr));
        const double diff = mr - ml;
        const double t = se > 0 ? diff / se : (diff == 0 ? 0 : INFINITY);
        // Two heads tried: the newest point, the newest two.
        const double p = std::min(1.0, 2 * (se > 0 ? stats::t_test_p(t, df) : diff == 0 ? 1 : 0));
        const double change = relative_change(s, ml, diff);
        if (!(p < o.head_alpha) || std::fabs(change) < o.min_change) continue;
        if (found && !(p < found->p)) continue;
        ChangePoint c;
        c.index = k;
        c.change = change;
        c.p = p;
        c.t = t;
        c.before = k;
        c.after = newest;
        const double q = stats::t_quantile(1 - (1 - o.level) / 4, df);
        c.low = relative_change(s, ml, diff - q * se);
        c.high = relative_change(s, ml, diff + q * se);
        found = c;
    }
    return found;
}

}  // namespace contest
