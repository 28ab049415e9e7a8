#pragma once
// The local-level model of a series (a random walk seen through noise):
// each point is the machine's level that day plus what is independent from
// point to point (its runs' median, a bad day) of variance point_var; the
// level moves from one point to the next by a random walk's step of
// variance walk_var. Its Kalman filter gives the level a part of a series
// implies at its last point, and its likelihood the two variances: how the
// change points (change_points.h) tell a machine's drift from a step.
#include <cstddef>
#include <span>
#include <vector>

namespace contest {

struct LocalLevel {
    double point_var = 0, walk_var = 0;
};

// The level at each point from the points up to it, and its variance in
// units of point_var, for a walk of walk_var / point_var = ratio; the
// first point starts the level with nothing known before it.
struct FilteredLevels {
    std::vector<double> level, var;
};
FilteredLevels filter_levels(std::span<const double> y, double ratio);

// How much likelier a walk must make the series than none, as twice the
// log of the ratio, to be taken.
inline constexpr double kWalkEvidence = 2.71;

// The two variances by maximum likelihood, the level starting afresh at the
// first point and at `restart` (a step of any size there: pass y.size()
// for none); point_var at least floor_var (what the runs alone give).
LocalLevel fit_local_level(std::span<const double> y, std::size_t restart, double floor_var);

// The likeliest step in a series under the model, by the likelihood ratio
// of a step at each split (each side at least min_segment points) against
// none, the ratio of the two variances fitted to each: a walk that explains
// a move as well as a step does leaves the ratio small. at is the first
// point after the step (0: none tried); step the level after less the level
// before (each as its side implies it next to the split), se its standard
// error with the point variance at least floor_var; t the ratio's
// equivalent t on df degrees of freedom, no larger than step / se.
struct StepScan {
    std::size_t at = 0;
    double lr = 0, t = 0, df = 0;
    double step = 0, before = 0, se = 0;
    double ratio = 0, point_var = 0;
};
StepScan scan_steps(std::span<const double> y, std::size_t min_segment, double floor_var);

}  // namespace contest
