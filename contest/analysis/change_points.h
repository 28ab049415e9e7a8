#pragma once
// Change points in a series of kernels (docs/history.md, "Change points"):
// where a measure moved between one kernel and the next and stayed there,
// found deterministically from every run at each point, each with the
// change, its interval and how sure. Checked by simulation
// (tests/simulations/sim_history_changes.cpp), whose table set the defaults.
//
// The method: binary segmentation with a t-test, as Hunter/Otava replaced
// E-Divisive's permutations. Each point (a kernel) is its runs' median on
// a log scale, so a change is a ratio and a spike of one run moves nothing.
// A split of a segment into a left and right part is tested by Student's t
// on the points' medians, their spread about the two parts' means pooled;
// that spread cannot be taken below what the runs' own spread implies for
// a median of that many runs, so two or three quiet kernels cannot make a
// change of nothing. The best split's p is multiplied by the number of
// splits tried (Bonferroni), and a split is taken when that p is below
// alpha, the change is at least min_change, and each side has at least
// min_segment kernels; then each side is searched again.
#include <cstddef>
#include <span>
#include <vector>

namespace contest {

struct ChangePointOptions {
    double alpha = 0.01;          // the corrected p a change must be below
    std::size_t min_segment = 3;  // kernels on each side of a change, at least
    double min_change = 0.01;     // |after / before - 1| at least
    double level = 0.95;          // of the change's interval
};

struct ChangePoint {
    std::size_t index = 0;     // the first point after the change
    double change = 0;         // after / before - 1, from the two segments' means
    double low = 0, high = 0;  // its interval at `level`
    double p = 1;              // the split's p, corrected for the splits tried
    double t = 0;
    std::size_t before = 0, after = 0;  // points in the segments either side
};

// points[i]: every run's figure at the i-th kernel (in kernel order); a
// point without runs is skipped by the caller. Figures must be positive for
// the log scale; a series with a figure <= 0 is taken as it is (a change
// then in units of the first segment's mean). Returns the changes in index
// order.
std::vector<ChangePoint> find_change_points(const std::vector<std::vector<double>>& points,
                                            const ChangePointOptions& options = {});

// Perfherder's rule, for comparison (Mozilla's treeherder, perfalert.py):
// each point's mean; at each i the mean of the 12 points before against the
// 12 after by a t statistic of their variances; an alert where t > 7 is a
// local maximum and the change is at least 2%. Returns the alerts' indices.
std::vector<std::size_t> perfherder_alerts(std::span<const double> point_means,
                                           std::size_t window = 12, double t_threshold = 7,
                                           double min_change = 0.02);

}  // namespace contest
