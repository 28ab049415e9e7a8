#pragma once
// `contest track`: a branch of a kernel tree followed, point by point (each
// tag, or every N-th first-parent commit, from FROM), each point's kernel
// measured and stored in the results database, and after each, the
// series' change points (the history's, contest/analysis/change_points.h);
// a new change is confirmed (its two points re-measured together, in
// interleaved rounds, judged by the bisection's test of its ends), then
// bisected (contest bisect between them), and its first bad commit written
// as a mail in the LKP shape, once. Every step is saved in the track's
// state (track_state.h) before and after it, so a track cut anywhere is
// taken on by the same command without measuring again what is done: a
// stored point, a confirmation judged, a bisection (which resumes itself),
// a mail written. docs/track.md.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/analysis/change_points.h"
#include "contest/bisect/bisect_measure.h"
#include "contest/history/history_db.h"
#include "contest/sys/progress.h"
#include "contest/track/branch_points.h"
#include "contest/track/track_bench.h"
#include "contest/track/track_state.h"

namespace contest::track {

struct TrackOptions {
    std::filesystem::path tree;  // the user's work tree, its top folder, absolute
    std::string branch = "HEAD";
    std::string from;  // REF; "" to take the state's (a start must give it)
    PointChoice choice;
    bisect::BisectMeasure measure;
    std::vector<std::string> run_words;  // each run's words (the workload, the loads, ...)
    unsigned point_rounds = 3, confirm_rounds = 5;
    // --boot: its runs across reboots (the bench's; the state keeps it as
    // part of the question).
    bool boot = false;
    std::filesystem::path folder;    // the track's: its state, runs, bisections
    std::filesystem::path mail_dir;  // where its mails are written
    // --send-to: each mail also handed to the mail program (sendmail's
    // words, then -oi -- and these addresses), once; none: files only.
    std::vector<std::string> send_to;
    std::vector<std::string> sendmail = {"/usr/sbin/sendmail"};
    std::filesystem::path scratch;  // a folder of contest's for git's output
    // Where the lock of this tree into this database goes: the machine's
    // (machine_lock_folder(), track_lock.h), whatever the workdir; and the
    // machine it is keyed by (this_machine()).
    std::filesystem::path locks;
    std::string machine;
    history::DbTarget db;
    ChangePointOptions changes;
    BisectRule rule;  // its ends' test judges a confirmation
    // Called after every save of the state (the tests stop the track there).
    std::function<void(const TrackState&)> saved;
};

// The track's state file in its folder.
inline constexpr const char* kTrackStateFile = "track.json";

// Another contest holds the tree's and database's track: no failure of its own.
struct TrackBusy : UsageError {
    using UsageError::UsageError;
};

// Follows the branch from where the state stands to its head and returns
// the state. UsageError for a state of another question (another tree,
// branch, measure, run words: one line naming what differs).
TrackState run_track(const TrackOptions& options, TrackBench& bench, Progress& progress);

// `contest track --status`: the points done, the one under way, the changes
// with what became of each, the bisections and the mails. `holder` is the
// pid of the contest taking the track now (0: none).
std::string track_status_text(const TrackState& state, int holder);

// The history's name of the measure (time: wall_s; loads: load_units_per_s;
// a measure's own name); UsageError for ratio, which the database does not keep.
std::string history_measure_of(const bisect::BisectMeasure& measure);

}  // namespace contest::track
