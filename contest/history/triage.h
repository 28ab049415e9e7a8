#pragma once
// Changes people triage (docs/history.md, "Triage"): every change a look at
// a series finds is recorded once, with an id that later looks find again,
// and a state a person sets (`contest history triage`), each setting a row
// of its own (who, when, why, the bug). A change is its series and the two
// kernels either side; as points arrive a change's estimated place moves,
// so a later look's split of the same series, the same way, within
// kPlaceTolerance points of a recorded change's is that change (its kernels
// then follow the later estimate). Changes of one kernel pair, over
// measures, loads and hosts, are one group: Perfherder's alert summary.
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/history_db.h"
#include "contest/history/series.h"

namespace contest::history {

// Perfherder's summary states a kernel lab needs (reassigned and backedout
// left out: docs/history.md says why).
enum class TriageStatus {
    untriaged,      // found, nobody has looked
    acknowledged,   // real, known, being handled elsewhere: the robot leaves it
    investigating,  // someone is looking: the robot goes on (its bisection helps)
    invalid,        // noise, a bad host, a harness fault: not a change of the kernel
    improvement,    // real, and for the better
    fixed,          // real, and fixed since (a later commit, a revert)
    wontfix,        // real, and accepted (a trade-off the kernel chose)
    downstream,     // the effect of another change (--of): handled there
};

const char* triage_status_name(TriageStatus s);
std::optional<TriageStatus> parse_triage_status(const std::string& text);
// "untriaged, acknowledged, ...": for messages and --help.
std::string triage_status_names();
// States in which the robot (contest track) does nothing more with a change:
// no confirmation, no bisection, no mail.
bool robot_leaves(TriageStatus s);

// A split's place moves by this many points as points arrive.
inline constexpr std::size_t kPlaceTolerance = 2;

struct RecordedChange {
    long long id = 0;
    SeriesKey series;
    std::string machine;  // the machine's name
    long long before_kernel = 0, after_kernel = 0;
    std::string before_name, after_name;      // "6.1.4 @0123456789ab"
    std::string before_commit, after_commit;  // "" where not a build of a tree
    double moved = 0, p = 1;                  // after / before - 1, at the latest look
    TriageStatus status = TriageStatus::untriaged;
    // The change marked fixed of the same series and way that this one comes
    // after: the regression is back (0: none).
    long long back_after = 0;
    std::string found_at, seen_at;
    // The latest triage's (the first row: who found it).
    std::string note, bug, by, at;
    long long of = 0;  // downstream: of which change
};

// One setting of a change's state: a row of change_triage.
struct TriageEntry {
    TriageStatus status = TriageStatus::untriaged;
    std::string note, bug, by, at;
    long long of = 0;
};

// The changes one look at `key` found, each matched to the change recorded
// before or recorded now (untriaged, found by `by`): their records in the
// order given. point_kernels: the kernel ids of the points looked at, in
// the order the changes' indices count.
std::vector<RecordedChange> record_changes(HistoryDb& db, const SeriesKey& key,
                                           const std::vector<long long>& point_kernels,
                                           const std::vector<ChangePoint>& found,
                                           const std::string& by, const std::string& now);

// The recorded change of `key` that a split at `index` of point_kernels,
// moving `moved`, is (only read); nullopt when none.
std::optional<RecordedChange> recorded_change_at(HistoryDb& db, const SeriesKey& key,
                                                 const std::vector<long long>& point_kernels,
                                                 std::size_t index, double moved);

struct TriageRequest {
    long long change = 0;
    TriageStatus status = TriageStatus::untriaged;
    std::string note, bug, by;
    long long of = 0;
};

// Sets a change's state (a new row). UsageError: no such change, --of
// missing for downstream or given otherwise, --of naming itself or no change,
// a bug that is no http(s) URL.
RecordedChange triage_change(HistoryDb& db, const TriageRequest& request, const std::string& now);

// UsageError for a change not recorded.
RecordedChange recorded_change(HistoryDb& db, long long id);
std::vector<TriageEntry> triage_history(HistoryDb& db, long long id);
// Every recorded change (of `only`'s state), by id.
std::vector<RecordedChange> recorded_changes(HistoryDb& db,
                                             std::optional<TriageStatus> only = std::nullopt);

// "7" or "#7" as a change's id; nullopt otherwise.
std::optional<long long> parse_change_id(const std::string& text);
// A bug's URL: http:// or https:// and a host, no blanks or control characters.
bool bug_url_ok(const std::string& text);

// Changes of one kernel pair (by commit where both are builds, else by
// kernel) over measures, loads and hosts.
struct ChangeGroup {
    std::string key;                      // "BEFORE..AFTER": commits, else kK ids
    std::string before_name, after_name;  // the first change's
    std::vector<RecordedChange> changes;  // the one that moved most first
    TriageStatus status =
        TriageStatus::untriaged;  // its changes' if one, else the first's unless any is untriaged
};
std::string group_key(const RecordedChange& c);
// Groups in the order of their largest change (most first).
std::vector<ChangeGroup> group_changes(std::vector<RecordedChange> changes);

// The robot's one mail of a group: claimed by the first that asks (the
// group's key or its first bad commit not claimed before), or again by the
// same claimant (a cut after its claim writes its mail next time). False:
// another claimant mailed this group.
bool claim_group_mail(HistoryDb& db, const std::string& group, const std::string& first_bad,
                      const std::string& mail, const std::string& claimant, const std::string& now);

}  // namespace contest::history
