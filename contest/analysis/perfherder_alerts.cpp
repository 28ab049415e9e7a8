#include "contest/analysis/perfherder_alerts.h"

#include <algorithm>
#include <cmath>

namespace contest {

namespace {

struct WindowStats {
    double mean = 0;      // weighted as asked
    double variance = 0;  // of every value about that mean, n - 1
    std::size_t n = 0;
};

// window[j] is the j-th point of a window, nearest the tested point first;
// linear weights give it (size - j) / size, else every point weighs 1.
WindowStats window_stats(const std::vector<const std::vector<double>*>& window, bool linear) {
    WindowStats s;
    const double size = double(window.size());
    double sum = 0, weights = 0;
    for (std::size_t j = 0; j < window.size(); ++j) {
        const double w = linear ? (size - double(j)) / size : 1.0;
        for (double x : *window[j]) sum += w * x;
        weights += w * double(window[j]->size());
        s.n += window[j]->size();
    }
    s.mean = weights > 0 ? sum / weights : 0;
    double ss = 0;
    for (const auto* p : window)
        for (double x : *p) ss += (x - s.mean) * (x - s.mean);
    s.variance = s.n > 1 ? ss / double(s.n - 1) : 0;
    return s;
}

double weighted_t(const std::vector<const std::vector<double>*>& back,
                  const std::vector<const std::vector<double>*>& fore) {
    if (back.empty() || fore.empty()) return 0;
    const WindowStats b = window_stats(back, true), f = window_stats(fore, true);
    const double delta = f.mean - b.mean;
    if (delta == 0) return 0;
    if (b.variance == 0 && f.variance == 0) return INFINITY;
    return delta / std::sqrt(b.variance / double(b.n) + f.variance / double(f.n));
}

}  // namespace

std::vector<std::size_t> perfherder_alerts(const std::vector<std::vector<double>>& points,
                                           const PerfherderOptions& o) {
    const std::size_t n = points.size();
    std::vector<double> t(n, 0), before(n, 0), after(n, 0);
    std::vector<std::size_t> back_values(n, 0), fore_values(n, 0);
    std::size_t since_alert = 0;  // Perfherder's last_seen_regression
    for (std::size_t i = 1; i < n; ++i) {
        std::vector<const std::vector<double>*> back, fore;
        const std::size_t reach =
            std::min(std::max(since_alert, o.min_back_window), o.max_back_window);
        for (std::size_t j = i; j-- > 0 && back_values[i] < o.max_back_window && i - j <= reach;) {
            back.push_back(&points[j]);
            back_values[i] += points[j].size();
        }
        for (std::size_t j = i; j < n && fore_values[i] < o.fore_window; ++j) {
            fore.push_back(&points[j]);
            fore_values[i] += points[j].size();
        }
        before[i] = window_stats(back, false).mean;
        after[i] = window_stats(fore, false).mean;
        t[i] = std::fabs(weighted_t(back, fore));
        since_alert = t[i] > o.t_threshold ? 0 : since_alert + 1;
    }
    std::vector<std::size_t> alerts;
    for (std::size_t i = 1; i < n; ++i) {
        if (back_values[i] < o.min_back_window || fore_values[i] < o.fore_window) continue;
        if (!(t[i] > o.t_threshold) || t[i - 1] > t[i] || (i + 1 < n && t[i + 1] > t[i])) continue;
        const double change = before[i] != 0 ? std::fabs(after[i] - before[i]) / before[i] : 0;
        if (change < o.min_change) continue;
        alerts.push_back(i);
    }
    return alerts;
}

}  // namespace contest
