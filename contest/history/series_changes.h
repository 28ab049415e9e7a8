#pragma once
// Where a series moved and stayed: its points in an order, every ok run's
// figure of each, read by the history's segmentation
// (analysis/change_points.h). `contest history changes` and its page look
// at a series in its own order; the robot (track/) at its branch's points
// in the branch's order, on its own host and on the database's others.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/series.h"

namespace contest::history {

// The points looked at, by commit: each one's place on a branch, and the
// tree whose builds they are ("": any tree's).
struct CommitPlaces {
    std::map<std::string, std::size_t> place;
    std::string tree;
};

struct SeriesChanges {
    // The points looked at, in order (into the SeriesPoints given, which
    // must outlive this), and their values.
    std::vector<const KernelPoint*> points;
    std::vector<std::vector<double>> values;
    // Each change's index is into points: the first point after it.
    std::vector<ChangePoint> changes;
};

// Every point of `series`, in the series' order (series_points').
SeriesChanges series_changes(const SeriesPoints& series, const ChangePointOptions& options);

// The points of `series` whose commits `places` names (builds of its tree
// when it names one), in their places' order.
SeriesChanges series_changes(const SeriesPoints& series, const CommitPlaces& places,
                             const ChangePointOptions& options);

}  // namespace contest::history
