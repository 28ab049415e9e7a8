#pragma once
// The track's steps (tracking.h), one class whose phases are a file each:
// its start and loop (tracking.cpp), the points measured and stored
// (track_points.cpp), the series' changes found and triaged
// (track_changes.cpp), a change confirmed (track_confirm.cpp), bisected and
// its mail written (track_bisect.cpp), and the mails sent
// (track_send.cpp). Every step saves the state before and after it.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/history_db.h"
#include "contest/history/series.h"
#include "contest/history/triage.h"
#include "contest/sys/progress.h"
#include "contest/track/track_bench.h"
#include "contest/track/track_options.h"
#include "contest/track/track_state.h"

namespace contest::track {

// Seconds since the epoch, now.
double now_s();
// Seconds from one ISO 8601 UTC time (a result file's, "...Z") to another;
// -1 when either is none. A run across reboots is timed by its file, since
// no one process saw it whole.
double utc_span_s(const std::string& from, const std::string& to);
// A fresh folder at `folder`: one a cut run left is kept beside it as
// FOLDER.interrupted-N, never measured into again.
void set_aside(const std::filesystem::path& folder);
// A wall time as the track says it: "133.3 s".
std::string seconds_text(double s);
// "007": a point's or a change's number in its folder's name, so that
// the folders list in their order.
std::string three_digits(std::size_t n);

class Track {
  public:
    Track(const TrackOptions& options, TrackBench& bench, Progress& progress)
        : o_(options), bench_(bench), progress_(progress) {}

    TrackState run();

  private:
    void start_or_take_on();
    void save() {
        write_track_state(o_.folder / kTrackStateFile, s_);
        if (o_.saved) o_.saved(s_);
    }
    // Points (track_points.cpp).
    void take_point(std::size_t index);
    void store_point(TrackPoint& point);
    // Changes and their triage (track_changes.cpp).
    void find_changes();
    // Triage (history/triage.h): the series' changes recorded at each look,
    // what a person marked a change, the group's one mail.
    void record_for_triage(const history::SeriesKey& key,
                           const std::vector<const history::KernelPoint*>& ours,
                           const std::vector<ChangePoint>& found);
    std::optional<history::RecordedChange> triaged(const TrackChange& change);
    bool left_by_triage(const TrackChange& change);
    // Confirmation (track_confirm.cpp).
    void act_on(std::size_t index);
    void add_neighbours(std::size_t index);
    void confirm(TrackChange& change);
    // Bisection and its mail (track_bisect.cpp).
    void bisect_and_mail(TrackChange& change);
    std::vector<std::string> on_other_hosts(const TrackChange& change);
    std::vector<std::string> group_lines(const TrackChange& change);
    // The mails sent (track_send.cpp).
    void send_mails();
    std::string point_name(const std::string& commit) const {
        for (const auto& p : s_.points)
            if (p.commit == commit) return p.name;
        return commit.substr(0, 12);
    }

    const TrackOptions& o_;
    TrackBench& bench_;
    Progress& progress_;
    TrackState s_;
    std::optional<history::HistoryDb> db_;
    // The series of the latest look: its key and its points' kernels and
    // commits, in the branch's order.
    history::SeriesKey series_;
    std::vector<long long> kernels_;
    std::map<std::string, std::size_t> place_;
    std::set<std::string> said_;  // triage notes already given this start
};

}  // namespace contest::track
