#include "contest/history/series_changes.h"

#include <algorithm>

namespace contest::history {

namespace {

SeriesChanges changes_over(std::vector<const KernelPoint*> points,
                           const ChangePointOptions& options) {
    SeriesChanges out;
    out.points = std::move(points);
    for (const KernelPoint* p : out.points) out.values.push_back(p->values);
    out.changes = find_change_points(out.values, options);
    return out;
}

}  // namespace

SeriesChanges series_changes(const SeriesPoints& series, const ChangePointOptions& options) {
    std::vector<const KernelPoint*> points;
    for (const KernelPoint& p : series.points) points.push_back(&p);
    return changes_over(std::move(points), options);
}

SeriesChanges series_changes(const SeriesPoints& series, const CommitPlaces& places,
                             const ChangePointOptions& options) {
    std::vector<const KernelPoint*> points;
    for (const KernelPoint& p : series.points)
        if ((places.tree.empty() || p.tree == places.tree) && places.place.count(p.commit) &&
            !p.values.empty())
            points.push_back(&p);
    std::stable_sort(points.begin(), points.end(), [&](const KernelPoint* a, const KernelPoint* b) {
        return places.place.at(a->commit) < places.place.at(b->commit);
    });
    return changes_over(std::move(points), options);
}

}  // namespace contest::history
