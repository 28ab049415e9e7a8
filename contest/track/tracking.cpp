#include "contest/track/tracking.h"

#include <algorithm>
#include <map>

#include "contest/report/formats.h"
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

std::string track_status_text(const TrackState& s, int holder) {
    std::string out = "track of " + printable(s.tree) + " " + printable(s.branch) + " from " +
                      s.from.substr(0, 12) + ", every " + printable(s.every) +
                      (s.head ? " and its head" : "") + ", on " + printable(s.measure) + "\n";
    out += holder ? "taken now by pid " + std::to_string(holder) + "\n" : "not running now\n";
    std::size_t stored = 0, failed = 0, left = 0;
    double seconds = 0;
    for (const auto& p : s.points) {
        if (p.status == PointStatus::stored) {
            ++stored;
            seconds += p.seconds;
        }
        failed += p.status == PointStatus::failed;
        left += p.status != PointStatus::stored && p.status != PointStatus::failed;
    }
    // A point measured and not stored is owed to the database (a server
    // away when it was measured): the track's next start stores it.
    const auto owed = std::count_if(s.points.begin(), s.points.end(), [](const TrackPoint& p) {
        return p.status == PointStatus::measured;
    });
    out += "points: " + std::to_string(s.points.size()) + ", " + std::to_string(stored) +
           " stored, " + std::to_string(failed) + " failed, " + std::to_string(left) + " to do";
    if (owed > 0)
        out += " (" + std::to_string(owed) + " measured, owed to the database: the next start " +
               "stores them)";
    if (stored && left)
        out += " (about " +
               seconds_text(seconds / static_cast<double>(stored) * static_cast<double>(left)) +
               " left at " + seconds_text(seconds / static_cast<double>(stored)) + " a point)";
    out += "\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrackPoint& p = s.points[i];
        out += "  " + std::to_string(i + 1) + ". " + printable(p.name) + " " +
               p.commit.substr(0, 12) + ": " + std::string(name_in(kPointStatusNames, p.status));
        if (p.status == PointStatus::stored) out += ", " + seconds_text(p.seconds);
        if (p.attempts > 1) out += ", " + std::to_string(p.attempts) + " runs started";
        if (!p.why.empty()) out += ": " + printable(p.why);
        out += "\n";
    }
    out += "changes: " + std::to_string(s.changes.size()) + "\n";
    for (const auto& c : s.changes) {
        out += "  " + printable(c.series) + " " + signed_percent(100 * c.change) + " between " +
               c.before.substr(0, 12) + " and " + c.after.substr(0, 12) + ": " +
               std::string(name_in(kChangeStatusNames, c.status));
        if (!c.first_bad.empty())
            out += ", first bad commit " + c.first_bad.substr(0, 12) + " " +
                   printable(c.first_bad_subject);
        if (c.status == ChangeStatus::bisecting)
            out += " (its state: " + printable(c.bisect_folder) + ", contest post shows it)";
        if (!c.mail.empty()) out += ", mail " + printable(c.mail);
        if (!c.why.empty()) out += ": " + printable(c.why);
        if (c.status == ChangeStatus::not_confirmed) out += ": " + printable(c.confirm_why);
        out += "\n";
    }
    out += "mails: " + std::to_string(s.mailed.size()) + "\n";
    return out;
}

}  // namespace contest::track
