#pragma once
// Change points in a series of kernels (docs/history.md, "Change points"):
// where a measure moved between one kernel and the next and stayed there,
// found deterministically from every run at each point, each with the
// change, its interval and how sure. Checked by simulation
// (tests/simulations/sim_history_changes.cpp), whose table set the defaults.
//
// The method: binary segmentation, as Hunter/Otava replaced E-Divisive's
// permutations with a test of two parts. Each point (a kernel) is its runs'
// median on a log scale, so a change is a ratio and a spike of one run
// moves nothing. The points are a local-level model (local_level.h): the
// machine's level wanders as a random walk from kernel to kernel, each
// point is that level plus what is independent. A split of a segment is
// the likelihood of a step there against none, each with the walk fitted
// (scan_steps), so a machine that drifts makes no change; the points'
// variance cannot be taken below what the runs' own spread implies for a
// median of that many runs, so two or three quiet kernels cannot make a
// change of nothing. The likeliest split's p is multiplied by the number
// of splits tried (Bonferroni), and a split is taken when that p is below
// alpha, the change is at least min_change, and each side has at least
// min_segment kernels; then each side is searched again. With drift =
// false, the method before: Student's t of the two parts' medians, the
// kernels taken as independent (for comparison: the simulations).
#include <cstddef>
#include <optional>
#include <vector>

namespace contest {

struct ChangePointOptions {
    // The corrected p a change must be below; conservative (a walk explains
    // part of any step): 0.2 keeps the simulation's false alarms under 0.05.
    double alpha = 0.2;
    std::size_t min_segment = 3;  // kernels on each side of a change, at least
    double min_change = 0.03;     // |after / before - 1| at least
    double level = 0.95;          // of the change's interval
    // Model the machine's drift (a random walk between kernels, estimated
    // from the series) instead of taking the kernels as independent.
    bool drift = true;
    // The p a change at the head (head_change) must be below: a suspect
    // only, which the robot confirms by measuring both sides together.
    double head_alpha = 0.05;
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

// The drift find_change_points sees in a series (on the log scale, so a
// fraction): the spread of a point about the machine's level that day, and
// the standard deviation of the level's step from one kernel to the next
// (a random walk's).
struct SeriesDrift {
    double point_sd = 0, walk_sd = 0;
};
SeriesDrift series_drift(const std::vector<std::vector<double>>& points);

// The points before the newest one or two a change at the head needs; and
// the points from which the drift is estimated rather than the points'
// spread alone.
inline constexpr std::size_t kHeadBefore = 3, kDriftPoints = 8;

// A change at the head: the newest one or two points set against all
// before them, by the points' spread (floored by their runs') and, with
// kDriftPoints or more before, the drift seen there; the better of the two
// (its p doubled for trying both) when below head_alpha and at least
// min_change. Found as soon as the points are measured, where
// find_change_points needs min_segment kernels after a change.
std::optional<ChangePoint> head_change(const std::vector<std::vector<double>>& points,
                                       const ChangePointOptions& options = {});

}  // namespace contest
