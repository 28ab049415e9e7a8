#pragma once
// A track's state (track.json in its folder): the question (the tree, its
// branch, where the track begins, which points, the measure, the run's
// words), every point with what became of it, every change the series
// showed with what became of it, and the mails written. Rewritten whole
// (atomically) at every step, so a track cut anywhere (Ctrl-C, SIGKILL, a
// power cut) is taken on by the same command from the last step it saved;
// read as untrusted text, bounded: a field of the wrong type, a folder
// outside the track's, a commit that is no hash, is one line naming it
// (exit 2).
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/sys/enum_names.h"

namespace contest::track {

// What became of a point: measuring (its run under way, or cut: taken again
// in a fresh folder), measured (its file complete, not yet in the
// database), stored (in the database: done), failed (did not build or
// boot, or no run came back: skipped, with why).
enum class PointStatus { pending, measuring, measured, stored, failed };

inline constexpr std::array<EnumName<PointStatus>, 5> kPointStatusNames{{
    {PointStatus::pending, "pending"},
    {PointStatus::measuring, "measuring"},
    {PointStatus::measured, "measured"},
    {PointStatus::stored, "stored"},
    {PointStatus::failed, "failed"},
}};

// What became of a change the series showed, in the order it goes through
// them: found, confirming (the two points re-measured together), then
// not_confirmed (the comparison could not tell them apart: nothing more) or
// bisecting, then no_answer (the bisection ended without one first bad
// commit: why is kept) or mailed (or already_mailed: the same first bad
// commit on the same measure was mailed before).
enum class ChangeStatus {
    found,
    confirming,
    not_confirmed,
    bisecting,
    no_answer,
    mailed,
    already_mailed,
};

inline constexpr std::array<EnumName<ChangeStatus>, 7> kChangeStatusNames{{
    {ChangeStatus::found, "found"},
    {ChangeStatus::confirming, "confirming"},
    {ChangeStatus::not_confirmed, "not confirmed"},
    {ChangeStatus::bisecting, "bisecting"},
    {ChangeStatus::no_answer, "no answer"},
    {ChangeStatus::mailed, "mailed"},
    {ChangeStatus::already_mailed, "already mailed"},
}};

struct TrackPoint {
    std::string commit;  // the full hash
    std::string name;    // its tag, or its first 12 hex digits
    PointStatus status = PointStatus::pending;
    std::string folder;     // its run's, below the track's folder
    std::string file;       // its result file once measured, below the track's folder
    std::string why;        // a failed point's reason
    unsigned attempts = 0;  // runs started (one cut by a crash counts)
    double seconds = 0;     // its measuring run's wall time
};

struct TrackChange {
    std::string series;         // mM/wW/LOAD/MEASURE, the history's
    std::string before, after;  // the points either side (full hashes)
    double change = 0, p = 1;   // as the series showed it (after / before - 1)
    ChangeStatus status = ChangeStatus::found;
    std::string confirm_folder, bisect_folder;  // below the track's folder
    unsigned confirm_attempts = 0;
    std::string confirm_why;  // the comparison's sentence (judge_ends')
    std::string first_bad, first_bad_subject;
    std::string mail;  // the mail's file name, in the mail folder
    std::string why;   // no answer: why
    // A pair next to a change the series showed and its confirmation did
    // not ("BEFORE..AFTER" of that change): where the change may really lie
    // when one point of the pair was off; "" for a change the series showed.
    std::string neighbour_of;
};

struct TrackState {
    std::string tree;     // the user's work tree
    std::string branch;   // the ref followed
    std::string from;     // the first point's commit (full hash)
    std::string every;    // "tag" or a number of first-parent commits
    bool head = false;    // the branch's head a point too
    bool boot = false;    // its runs across reboots (--boot)
    std::string measure;  // WHAT:LOAD, as contest bisect takes it
    std::vector<std::string> run_words;
    unsigned point_rounds = 0, confirm_rounds = 0;
    std::vector<TrackPoint> points;  // in the branch's order
    std::vector<TrackChange> changes;
    // The mails written, each once: MEASURE@FIRST-BAD-COMMIT.
    std::vector<std::string> mailed;
    // The mails handed to the mail program (--send-to), each at most once:
    // recorded before it runs, so a cut while it runs never sends twice.
    std::vector<std::string> sent;
};

// The largest state read: a year of daily points and their changes is far
// below it.
inline constexpr std::uintmax_t kMaxTrackStateBytes = 8u << 20;

// Its text and back; the reader checks every field (a UsageError naming
// `where` and the field's path).
std::string track_state_text(const TrackState& state);
TrackState track_state_from_text(const std::string& text, const std::string& where);

// track.json in `folder`, read as untrusted (a regular file, no link,
// bounded), or written whole atomically.
TrackState read_track_state(const std::filesystem::path& path);
void write_track_state(const std::filesystem::path& path, const TrackState& state);

}  // namespace contest::track
