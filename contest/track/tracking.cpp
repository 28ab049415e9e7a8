#include "contest/track/tracking.h"

#include <algorithm>
#include <map>

#include "contest/report/formats.h"
#include "contest/report/outputs.h"
#include "contest/sys/enum_names.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/text.h"
#include "contest/track/track_lock.h"
#include "contest/track/track_steps.h"

namespace contest::track {

namespace fs = std::filesystem;

std::string history_measure_of(const bisect::BisectMeasure& measure) {
    if (measure.what == "time") return "wall_s";
    if (measure.what == "loads") return "load_units_per_s";
    if (measure.what == "ratio")
        throw UsageError(
            "contest track: --measure ratio:" + measure.load +
            ": the results database keeps each run's figures, not their ratio to no_load's; "
            "give time:, loads: or a measure's name");
    return measure.what;
}

namespace {

void refuse_other_question(const TrackState& s, const TrackState& asked, const fs::path& folder) {
    const auto differs = [&](const std::string& what, const std::string& was,
                             const std::string& now) {
        throw UsageError("contest track: " + printable(folder.string()) +
                         " follows another question (" + what + " " + printable(was) + ", not " +
                         printable(now) +
                         "): give the same, or another --results for a track of its own");
    };
    if (s.tree != asked.tree) differs("the tree", s.tree, asked.tree);
    if (s.branch != asked.branch) differs("--branch", s.branch, asked.branch);
    if (!asked.from.empty() && s.from != asked.from) differs("--from", s.from, asked.from);
    if (s.every != asked.every) differs("--every", s.every, asked.every);
    if (s.head != asked.head) differs("--head", s.head ? "on" : "off", asked.head ? "on" : "off");
    if (s.boot != asked.boot) differs("--boot", s.boot ? "on" : "off", asked.boot ? "on" : "off");
    if (s.measure != asked.measure) differs("--measure", s.measure, asked.measure);
    if (s.run_words != asked.run_words)
        differs("the run words", join(s.run_words, " "), join(asked.run_words, " "));
    if (s.point_rounds != asked.point_rounds)
        differs("--runs", std::to_string(s.point_rounds), std::to_string(asked.point_rounds));
    if (s.confirm_rounds != asked.confirm_rounds)
        differs("--confirm-rounds", std::to_string(s.confirm_rounds),
                std::to_string(asked.confirm_rounds));
}

}  // namespace

void Track::start_or_take_on() {
    TrackState asked;
    asked.tree = o_.tree.string();
    asked.branch = o_.branch;
    asked.from = o_.from.empty() ? "" : resolve_commit(o_.tree, o_.from, "--from", o_.scratch);
    asked.every = o_.choice.every;
    asked.head = o_.choice.head;
    asked.boot = o_.boot;
    asked.measure = o_.measure.text();
    asked.run_words = o_.run_words;
    asked.point_rounds = o_.point_rounds;
    asked.confirm_rounds = o_.confirm_rounds;
    std::error_code ec;
    if (fs::exists(o_.folder / kTrackStateFile, ec)) {
        s_ = read_track_state(o_.folder / kTrackStateFile);
        refuse_other_question(s_, asked, o_.folder);
    } else {
        if (asked.from.empty())
            throw UsageError(
                "contest track: give --from REF, where the track begins (its first "
                "point), to start a track in " +
                printable(o_.folder.string()));
        s_ = asked;
    }
    const std::string head = resolve_commit(o_.tree, s_.branch, "--branch", o_.scratch);
    // The state's points in the branch's order, the new ones where the
    // branch has them (a tag made later on an older commit too). A point no
    // longer on the branch (it was rewritten) leaves the track: its runs
    // stay in the database, but it is no point of this line's series.
    std::map<std::string, TrackPoint> known;
    for (auto& p : s_.points) known[p.commit] = std::move(p);
    std::vector<TrackPoint> points;
    std::size_t added = 0;
    for (const BranchPoint& b : branch_points(o_.tree, s_.from, head, o_.choice, o_.scratch)) {
        const auto was = known.find(b.commit);
        if (was != known.end()) {
            points.push_back(std::move(was->second));
            known.erase(was);
            continue;
        }
        TrackPoint& p = points.emplace_back();
        p.commit = b.commit;
        p.name = b.name;
        ++added;
    }
    for (const auto& [commit, p] : known)
        warn("contest track: point " + printable(p.name) + " (" + commit.substr(0, 12) +
             ") is no longer on " + printable(s_.branch) + "'s line: left out of the track");
    s_.points = std::move(points);
    progress_.note("contest track: " + printable(s_.tree) + " " + printable(s_.branch) + " at " +
                   head.substr(0, 12) + ": " + std::to_string(s_.points.size()) + " points, " +
                   std::to_string(added) + " new");
    fs::create_directories(o_.folder);
    save();
}

TrackState Track::run() {
    fs::create_directories(o_.folder);
    fs::create_directories(o_.locks);  // the machine's is made with care before (track_lock.h)
    // One contest a track: of this folder, and of this tree into this
    // database on this machine, wherever the track's folder and workdir
    // (two tracking one tree into one database would store each point
    // twice, and confirm, bisect and mail each change twice).
    auto folder_lock = FileLock::try_take(o_.folder / "track.lock");
    if (!folder_lock)
        throw TrackBusy("contest track: " + printable(o_.folder.string()) +
                        " is being taken by another contest (pid " +
                        std::to_string(FileLock::holder(o_.folder / "track.lock")) + ")");
    const fs::path tree_lock_file = o_.locks / track_lock_name(o_.machine, o_.tree, o_.db);
    auto tree_lock = TrackLock::try_take(tree_lock_file);
    if (!tree_lock)
        throw TrackBusy("contest track: " + printable(o_.tree.string()) + " into " +
                        printable(o_.db.shown) + " is being tracked by another contest (pid " +
                        std::to_string(FileLock::holder(tree_lock_file)) + ")");
    start_or_take_on();
    db_.emplace(o_.db, history::OpenFor::writing);
    try {
        // What a cut track left between its steps first: a change found,
        // not yet acted on, is the series' latest word.
        find_changes();
        for (std::size_t i = 0; i < s_.points.size(); ++i) {
            if (s_.points[i].status == PointStatus::stored ||
                s_.points[i].status == PointStatus::failed)
                continue;
            take_point(i);
            if (s_.points[i].status == PointStatus::stored) find_changes();
        }
    } catch (const AcrossReboots& e) {
        // The state already says where it stands; the mails written so far
        // still go.
        save();
        progress_.note("contest track: " + printable(e.what()) +
                       ": it goes on across reboots, and the track's next start takes it on");
    }
    send_mails();
    return s_;
}

TrackState run_track(const TrackOptions& options, TrackBench& bench, Progress& progress) {
    return Track(options, bench, progress).run();
}

TrackStatus track_status(const TrackState& s, int holder) {
    TrackStatus out;
    out.tree = s.tree;
    out.branch = s.branch;
    out.from = s.from.substr(0, 12);
    out.every = s.every;
    out.head = s.head;
    out.measure = s.measure;
    out.holder = holder;
    for (const TrackPoint& p : s.points) {
        TrackStatusPoint point;
        point.name = p.name;
        point.commit = p.commit.substr(0, 12);
        point.status = name_in(kPointStatusNames, p.status);
        point.attempts = p.attempts;
        point.why = p.why;
        if (p.status == PointStatus::stored) {
            point.seconds = p.seconds;
            ++out.stored;
            out.stored_seconds += p.seconds;
        } else if (p.status == PointStatus::failed) {
            ++out.failed;
        } else {
            ++out.to_do;
        }
        out.owed += p.status == PointStatus::measured;
        out.points.push_back(std::move(point));
    }
    for (const TrackChange& c : s.changes)
        out.changes.push_back({.series = c.series,
                               .change = c.change,
                               .before = c.before.substr(0, 12),
                               .after = c.after.substr(0, 12),
                               .status = std::string(name_in(kChangeStatusNames, c.status)),
                               .first_bad = c.first_bad.substr(0, 12),
                               .first_bad_subject = c.first_bad_subject,
                               .bisecting = c.status == ChangeStatus::bisecting,
                               .bisect_folder = c.bisect_folder,
                               .mail = c.mail,
                               .why = c.why,
                               .not_confirmed = c.status == ChangeStatus::not_confirmed,
                               .confirm_why = c.confirm_why});
    out.mails = s.mailed.size();
    return out;
}

std::string track_status_text(const TrackState& state, int holder) {
    return find_output("text", OutputUse::track_status).track_status(track_status(state, holder));
}

}  // namespace contest::track
