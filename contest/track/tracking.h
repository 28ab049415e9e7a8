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
#include <string>

#include "contest/bisect/bisect_measure.h"
#include "contest/report/track_status_text.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/track/track_bench.h"
#include "contest/track/track_options.h"
#include "contest/track/track_state.h"

namespace contest::track {

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
// pid of the contest taking the track now (0: none). The model, and its
// text as the outputs table renders it.
TrackStatus track_status(const TrackState& state, int holder);
std::string track_status_text(const TrackState& state, int holder);

// The history's name of the measure (time: wall_s; loads: load_units_per_s;
// a measure's own name); UsageError for ratio, which the database does not keep.
std::string history_measure_of(const bisect::BisectMeasure& measure);

}  // namespace contest::track
