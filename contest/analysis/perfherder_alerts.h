#pragma once
// Perfherder's alert rule (Mozilla's treeherder: perfalert's detect_changes
// and alerts.py's threshold), re-implemented for comparison with contest's
// change points (docs/history.md, "Change points"): the simulations and
// bench/tcpd_score.py set the two side by side.
//
// What it does, as Perfherder does it: each point (a push; here a kernel)
// holds its values (Perfherder's jobs; here the runs). At each point i the
// values of the points before it, taken nearest first until min_back_window
// values are reached (up to max_back_window values and as many points,
// the back window growing while no alert has been seen lately), are set
// against the values of i and the points after it until fore_window values
// are reached, by a t of the two windows' linearly weighted means (nearest
// point heaviest) over their plain sample variances. An alert is a point
// whose windows are both full, whose |t| exceeds t_threshold and is at
// least its neighbours', and whose windows' plain means differ by at least
// min_change of the earlier one.
#include <cstddef>
#include <vector>

namespace contest {

struct PerfherderOptions {
    std::size_t min_back_window = 12, max_back_window = 24, fore_window = 12;  // values
    double t_threshold = 7;
    double min_change = 0.02;  // Perfherder's alert_threshold, 2%
};

// points[i]: the values at the i-th point, in order. Returns the alerts'
// indices (the first point after each change).
std::vector<std::size_t> perfherder_alerts(const std::vector<std::vector<double>>& points,
                                           const PerfherderOptions& options = {});

}  // namespace contest
