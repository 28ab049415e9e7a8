#include "contest/analysis/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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
    bool any = false;
    for (std::size_t k = a + m; k + m <= b; ++k) {
        const Split sp = test_split(s, a, k, b);
        if (!any || std::fabs(sp.t) > std::fabs(best.t)) best = sp;
        any = true;
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

std::vector<std::size_t> perfherder_alerts(std::span<const double> v, std::size_t window,
                                           double t_threshold, double min_change) {
    const std::size_t n = v.size();
    std::vector<double> t(n, 0), change(n, 0);
    const auto mean_var = [&](std::size_t from, std::size_t to) {
        double m = 0;
        for (std::size_t i = from; i < to; ++i) m += v[i];
        m /= double(to - from);
        double ss = 0;
        for (std::size_t i = from; i < to; ++i) ss += (v[i] - m) * (v[i] - m);
        return std::pair{m, to - from > 1 ? ss / double(to - from - 1) : 0.0};
    };
    for (std::size_t i = window; i + window <= n; ++i) {
        const auto [mb, vb] = mean_var(i - window, i);
        const auto [ma, va] = mean_var(i, i + window);
        const double se = std::sqrt(vb / double(window) + va / double(window));
        t[i] = se > 0 ? std::fabs(ma - mb) / se : (ma == mb ? 0 : INFINITY);
        change[i] = mb != 0 ? (ma - mb) / std::fabs(mb) : 0;
    }
    std::vector<std::size_t> alerts;
    for (std::size_t i = window; i + window <= n; ++i)
        if (t[i] > t_threshold && t[i] > t[i - 1] && (i + 1 >= n || t[i] >= t[i + 1]) &&
            std::fabs(change[i]) >= min_change)
            alerts.push_back(i);
    return alerts;
}

}  // namespace contest
