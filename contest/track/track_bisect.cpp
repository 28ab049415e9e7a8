// A confirmed change bisected (the bench's contest bisect), and its first
// bad commit written as one mail for its group, with what the database's
// other hosts and changes say of it.
#include <algorithm>

#include "contest/analysis/stats.h"
#include "contest/history/series_changes.h"
#include "contest/report/formats.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/host_name.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"
#include "contest/track/track_mail.h"
#include "contest/track/track_steps.h"

namespace contest::track {

namespace fs = std::filesystem;

void Track::bisect_and_mail(TrackChange& change) {
    progress_.status("contest track: bisecting between " + printable(point_name(change.before)) +
                     " and " + printable(point_name(change.after)));
    bisect::BisectState b;
    try {
        b = bench_.bisect(change.before, change.after, o_.folder / change.bisect_folder);
    } catch (const PointFailed& e) {
        // Past the bound: the robot moves on (a bisection that cannot end
        // in its time would take every later run's); its state is kept, so
        // a person can take it on by hand with more time.
        change.status = ChangeStatus::no_answer;
        change.why = std::string("the bisection was stopped: ") + e.what() +
                     "; its state is kept in " + (o_.folder / change.bisect_folder).string();
        save();
        warn("contest track: the bisection between " + printable(point_name(change.before)) +
             " and " + printable(point_name(change.after)) +
             " has no answer: " + printable(change.why));
        return;
    }
    if (b.first_bad.empty()) {
        change.status = ChangeStatus::no_answer;
        change.why = !b.failure.empty() ? b.failure
                     : b.ends_state != EndsState::differ
                         ? b.ends_why
                         : "no single first bad commit: it is one of " +
                               std::to_string(b.could_be.size()) + " commits";
        save();
        warn("contest track: the bisection between " + printable(point_name(change.before)) +
             " and " + printable(point_name(change.after)) +
             " has no answer: " + printable(change.why));
        return;
    }
    change.first_bad = b.first_bad;
    change.first_bad_subject = b.first_bad_subject;
    const std::string key = s_.measure + "@" + b.first_bad;
    if (std::find(s_.mailed.begin(), s_.mailed.end(), key) != s_.mailed.end()) {
        change.status = ChangeStatus::already_mailed;
        save();
        return;
    }
    // One mail a group (the changes of this kernel pair over measures,
    // loads and hosts): another host's track may have mailed it.
    if (!history::claim_group_mail(*db_, change.before + ".." + change.after, b.first_bad,
                                   mail_file_name(b.first_bad, s_.measure),
                                   host_name() + ":" + o_.folder.string(), utc_timestamp())) {
        change.status = ChangeStatus::already_mailed;
        save();
        progress_.note("contest track: first bad commit " + b.first_bad.substr(0, 12) +
                       ": its group was mailed by another track of the database");
        return;
    }
    change.mail = mail_file_name(b.first_bad, s_.measure);
    const fs::path mail = o_.mail_dir / change.mail;
    std::error_code ec;
    // Written before a cut that left it unrecorded: it is the one mail.
    if (!fs::exists(mail, ec)) {
        std::vector<std::string> unread;
        std::vector<ResultFile> compared,
            found = read_result_paths({o_.folder / change.confirm_folder}, unread);
        // Every part's files, the before's first: the table pools the
        // rounds the confirmation judged.
        for (const char* label : {kBeforeLabel, kAfterLabel})
            for (auto& f : found)
                if (f.label == label) compared.push_back(f);
        fs::create_directories(o_.mail_dir);
        write_file_atomically(
            mail, track_mail(s_, change, b, compared, on_other_hosts(change), group_lines(change)));
    }
    s_.mailed.push_back(key);
    change.status = ChangeStatus::mailed;
    save();
    progress_.note("contest track: first bad commit " + b.first_bad.substr(0, 12) + " " +
                   printable(b.first_bad_subject) + ": mail " + printable(mail.string()));
}

// The mail's word on its group: a regression back after one marked fixed,
// and the database's other changes between the same two kernels.
std::vector<std::string> Track::group_lines(const TrackChange& change) {
    std::vector<std::string> lines;
    const auto mine = triaged(change);
    if (mine && mine->back_after)
        lines.push_back("This change comes back: the same way as #" +
                        std::to_string(mine->back_after) + " of the same series, marked fixed.");
    for (const auto& c : history::recorded_changes(*db_)) {
        if (c.before_commit != change.before || c.after_commit != change.after) continue;
        if (mine && c.id == mine->id) continue;
        lines.push_back("#" + std::to_string(c.id) + " " + c.series.text() + " (" + c.machine +
                        "): " + signed_percent(100 * c.moved) + ", " +
                        history::triage_status_name(c.status));
    }
    return lines;
}

// The same change on the database's other hosts (a fleet's shared --db):
// each host's series of this workload, load and measure, its points the
// track's commits (whatever its clone's path), in the branch's order; the
// change between the same two points and whether that host's own series
// shows a change point there, so a mail says where it was seen and where not.
std::vector<std::string> Track::on_other_hosts(const TrackChange& change) {
    const auto mine = history::parse_series_key(change.series);
    if (!mine) return {};
    history::CommitPlaces places;  // any tree's builds: whatever another host's clone's path
    for (std::size_t i = 0; i < s_.points.size(); ++i) places.place[s_.points[i].commit] = i;
    std::vector<std::string> lines;
    for (const history::SeriesInfo& info : history::list_series(*db_, mine->measure)) {
        if (info.key.machine_id == mine->machine_id || info.key.workload_id != mine->workload_id ||
            info.key.load != mine->load)
            continue;
        const history::SeriesPoints series = history::series_points(*db_, info.key);
        const history::SeriesChanges look = history::series_changes(series, places, o_.changes);
        const std::vector<const history::KernelPoint*>& ours = look.points;
        const auto at = [&](const std::string& commit) {
            return std::find_if(ours.begin(), ours.end(),
                                [&](auto* p) { return p->commit == commit; });
        };
        const auto before = at(change.before), after = at(change.after);
        std::string line = "  " + info.machine + ": ";
        if (before == ours.end() || after == ours.end()) {
            lines.push_back(line + "not measured at both points");
            continue;
        }
        const double moved =
            stats::summarize((*after)->values).median / stats::summarize((*before)->values).median -
            1;
        bool there = false;
        for (const ChangePoint& c : look.changes)
            there = there || (ours[c.index - 1]->commit == change.before &&
                              ours[c.index]->commit == change.after);
        lines.push_back(
            line + signed_percent(100 * moved) + " between the same points (medians): " +
            (there ? "a change point there too"
                   : "no change point there, over " + std::to_string(ours.size()) + " points"));
    }
    return lines;
}

}  // namespace contest::track
