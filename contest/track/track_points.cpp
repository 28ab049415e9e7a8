// The track's points: each one's kernel measured (the bench's), its file
// checked for a run of the track's load, then stored in the database.
#include <algorithm>

#include "contest/history/import.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"
#include "contest/track/track_steps.h"

namespace contest::track {

namespace fs = std::filesystem;

void Track::take_point(std::size_t index) {
    TrackPoint& point = s_.points[index];
    if (point.status == PointStatus::measured) return store_point(point);
    // A run across reboots goes on by itself: asked again, not begun afresh.
    const bool going_on = point.status == PointStatus::measuring && !point.folder.empty() &&
                          bench_.goes_on_by_itself(o_.folder / point.folder);
    point.folder = "points/" + three_digits(index + 1) + "-" + point.commit.substr(0, 12);
    const fs::path folder = o_.folder / point.folder;
    if (!going_on) {
        set_aside(folder);
        point.status = PointStatus::measuring;
        ++point.attempts;
        save();
    }
    progress_.status("contest track: point " + std::to_string(index + 1) + " of " +
                     std::to_string(s_.points.size()) + ", " + printable(point.name) +
                     ": building and measuring");
    const double started = now_s();
    fs::path file;
    double run_span = -1;  // a run across reboots: its file's span
    try {
        file = bench_.measure_point(point.commit, folder);
        const ResultFile measured = read_result_file(file);
        if (going_on) run_span = utc_span_s(measured.started_at, measured.finished_at);
        const bool any_ok = std::any_of(measured.runs.begin(), measured.runs.end(), [&](auto& r) {
            return r.load == o_.measure.load && r.status == RunStatus::ok;
        });
        if (!any_ok) {
            std::string why = "no run of " + o_.measure.load + " came back";
            for (const auto& r : measured.runs)
                if (r.load == o_.measure.load && !r.reason.empty()) {
                    why += " (" + r.reason + ")";
                    break;
                }
            throw PointFailed(why);
        }
    } catch (const PointFailed& e) {
        point.status = PointStatus::failed;
        point.why = e.what();
        point.seconds = now_s() - started;
        save();
        warn("contest track: point " + printable(point.name) + " skipped: " + printable(point.why));
        return;
    }
    point.seconds = run_span >= 0 ? run_span : now_s() - started;
    point.file = fs::relative(file, o_.folder).string();
    point.status = PointStatus::measured;
    save();
    store_point(point);
}

void Track::store_point(TrackPoint& point) {
    const history::ImportTally tally = db_->guarded("storing point " + point.name, [&] {
        return history::import_paths(*db_, {o_.folder / point.file}, utc_timestamp());
    });
    for (const auto* why : {&tally.skipped, &tally.refused})
        if (!why->empty())
            throw EnvironmentError("contest track: point " + printable(point.name) +
                                   ": its file is not stored: " + why->front());
    point.status = PointStatus::stored;
    save();
    const std::string hash = point.commit.substr(0, 12);
    progress_.note("contest track: point " + printable(point.name) +
                   (point.name == hash ? "" : " (" + hash + ")") + " stored, " +
                   seconds_text(point.seconds));
}

}  // namespace contest::track
