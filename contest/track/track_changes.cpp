// The track's series looked at after each point: its changes found
// (history/series_changes.h), recorded for triage, and acted on.
#include <algorithm>

#include "contest/history/series_changes.h"
#include "contest/report/formats.h"
#include "contest/sys/host_name.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"
#include "contest/track/track_steps.h"
#include "contest/track/tracking.h"

namespace contest::track {

namespace fs = std::filesystem;

// The series of the track's measure on this machine and workload (its
// latest point's), its points the track's own, in the branch's order;
// each change point not seen before is recorded, then acted on.
void Track::find_changes() {
    history::CommitPlaces places;
    places.tree = s_.tree;
    const TrackPoint* latest = nullptr;
    for (std::size_t i = 0; i < s_.points.size(); ++i)
        if (s_.points[i].status == PointStatus::stored) {
            places.place[s_.points[i].commit] = i;
            latest = &s_.points[i];
        }
    // A change at the head is looked for from kHeadBefore + 1 points on.
    if (latest && places.place.size() >= std::min(2 * o_.changes.min_segment, kHeadBefore + 1)) {
        const history::SeriesKey key =
            history::series_of_file(*db_, read_result_file(o_.folder / latest->file),
                                    o_.measure.load, history_measure_of(o_.measure));
        const history::SeriesPoints series = history::series_points(*db_, key);
        const history::SeriesChanges look = history::series_changes(series, places, o_.changes);
        const std::vector<const history::KernelPoint*>& ours = look.points;
        // The series' changes, and a suspect one at its head (the newest one
        // or two points), confirmed at once rather than min_segment points later.
        std::vector<ChangePoint> found = look.changes;
        // A suspect within the tolerance of a split the same way is that
        // change (history/triage.h), not a second one to confirm.
        if (const auto head = head_change(look.values, o_.changes))
            if (std::none_of(found.begin(), found.end(), [&](const ChangePoint& c) {
                    const auto apart =
                        c.index > head->index ? c.index - head->index : head->index - c.index;
                    return apart <= history::kPlaceTolerance &&
                           (c.change > 0) == (head->change > 0);
                }))
                found.push_back(*head);
        record_for_triage(key, ours, found);
        for (const ChangePoint& c : found) {
            const std::string before = ours[c.index - 1]->commit, after = ours[c.index]->commit;
            const bool seen = std::any_of(s_.changes.begin(), s_.changes.end(), [&](auto& k) {
                return k.before == before && k.after == after;
            });
            if (seen) continue;
            TrackChange& change = s_.changes.emplace_back();
            change.series = key.text();
            change.before = before;
            change.after = after;
            change.change = c.change;
            change.p = c.p;
            save();
            progress_.note("contest track: " + key.text() + " moved " +
                           signed_percent(100 * c.change) + " (p " + format_p(c.p) + ") between " +
                           printable(point_name(before)) + " and " + printable(point_name(after)));
        }
    }
    for (std::size_t i = 0; i < s_.changes.size(); ++i) act_on(i);
}

void Track::record_for_triage(const history::SeriesKey& key,
                              const std::vector<const history::KernelPoint*>& ours,
                              const std::vector<ChangePoint>& found) {
    series_ = key;
    kernels_.clear();
    place_.clear();
    for (const auto* p : ours) {
        place_[p->commit] = kernels_.size();
        kernels_.push_back(p->kernel_id);
    }
    history::record_changes(*db_, key, kernels_, found, "contest track@" + host_name(),
                            utc_timestamp());
}

// The recorded change a track's change is: a neighbour's, the split's it
// came from.
std::optional<history::RecordedChange> Track::triaged(const TrackChange& change) {
    std::string after = change.after;
    if (const auto dots = change.neighbour_of.find(".."); dots != std::string::npos)
        after = change.neighbour_of.substr(dots + 2);
    const auto at = place_.find(after);
    if (at == place_.end()) return std::nullopt;
    return history::recorded_change_at(*db_, series_, kernels_, at->second, change.change);
}

// A change a person marked as needing nothing more (invalid, acknowledged,
// wontfix, downstream, fixed): not confirmed, bisected or mailed again.
bool Track::left_by_triage(const TrackChange& change) {
    const auto r = triaged(change);
    if (!r || !history::robot_leaves(r->status)) return false;
    const std::string key = change.before + ".." + change.after;
    if (said_.insert(key).second)
        progress_.note(
            "contest track: the change between " + printable(point_name(change.before)) + " and " +
            printable(point_name(change.after)) + " is #" + std::to_string(r->id) + ", marked " +
            history::triage_status_name(r->status) + " by " + printable(r->by) + ": left alone");
    return true;
}

}  // namespace contest::track
