#pragma once
// What `contest track` is asked (tracking.h): the tree and branch, the
// points, the measure, each run's words, where the track's state, runs and
// mails go, and the database its points are stored in.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/analysis/change_points.h"
#include "contest/history/history_db.h"
#include "contest/track/branch_points.h"
#include "contest/track/track_runs.h"
#include "contest/track/track_state.h"

namespace contest::track {

// Its runs' part (track_runs.h) and the rest of what it is asked.
struct TrackOptions : TrackRuns {
    std::string branch = "HEAD";
    std::string from;  // REF; "" to take the state's (a start must give it)
    PointChoice choice;
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

}  // namespace contest::track
