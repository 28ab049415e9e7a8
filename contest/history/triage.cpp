#include "contest/history/triage.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include "contest/history/db_session.h"
#include "contest/history/row_values.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::history {

namespace {

constexpr std::array<std::pair<TriageStatus, const char*>, 8> kNames{{
    {TriageStatus::untriaged, "untriaged"},
    {TriageStatus::acknowledged, "acknowledged"},
    {TriageStatus::investigating, "investigating"},
    {TriageStatus::invalid, "invalid"},
    {TriageStatus::improvement, "improvement"},
    {TriageStatus::fixed, "fixed"},
    {TriageStatus::wontfix, "wontfix"},
    {TriageStatus::downstream, "downstream"},
}};

// A change's row with its kernels' names and its latest triage's.
constexpr const char* kChangeColumns =
    "SELECT c.id, c.machine_id, c.workload_id, c.load, c.measure, ma.name, c.before_kernel_id, "
    "c.after_kernel_id, kb.release, kb.commit_id, ka.release, ka.commit_id, c.moved, c.p, "
    "c.status, c.back_after, c.found_at, c.seen_at, t.note, t.bug, t.by_whom, t.triaged_at, "
    "t.of_change FROM changes c JOIN machines ma ON ma.id = c.machine_id "
    "JOIN kernels kb ON kb.id = c.before_kernel_id JOIN kernels ka ON ka.id = c.after_kernel_id "
    "JOIN change_triage t ON t.id = (SELECT MAX(id) FROM change_triage WHERE change_id = c.id) ";

std::string kernel_name(const std::string& release, const std::string& commit) {
    std::string name = release.empty() ? "?" : release;
    if (!commit.empty()) name += " @" + commit.substr(0, 12);
    return name;
}

TriageStatus status_of(const std::string& text) {
    // Written only by this file: a name it does not know is a newer
    // contest's state, which reads as nobody has looked.
    return parse_triage_status(text).value_or(TriageStatus::untriaged);
}

RecordedChange change_from(const soci::row& row) {
    RecordedChange c;
    c.id = integer_at(row, 0);
    c.series.machine_id = integer_at(row, 1);
    c.series.workload_id = integer_at(row, 2);
    c.series.load = row.get<std::string>(3);
    c.series.measure = row.get<std::string>(4);
    c.machine = row.get<std::string>(5);
    c.before_kernel = integer_at(row, 6);
    c.after_kernel = integer_at(row, 7);
    c.before_commit = row.get<std::string>(9);
    c.after_commit = row.get<std::string>(11);
    c.before_name = kernel_name(row.get<std::string>(8), c.before_commit);
    c.after_name = kernel_name(row.get<std::string>(10), c.after_commit);
    c.moved = real_at(row, 12);
    c.p = real_at(row, 13);
    c.status = status_of(row.get<std::string>(14));
    c.back_after = integer_at(row, 15);
    c.found_at = row.get<std::string>(16);
    c.seen_at = row.get<std::string>(17);
    c.note = row.get<std::string>(18);
    c.bug = row.get<std::string>(19);
    c.by = row.get<std::string>(20);
    c.at = row.get<std::string>(21);
    c.of = integer_at(row, 22);
    return c;
}

template <class... Uses>
std::vector<RecordedChange> changes_where(HistoryDb& db, const std::string& where, Uses&&... uses) {
    std::vector<RecordedChange> out;
    soci::rowset<soci::row> rows =
        ((session_of(db).prepare << std::string(kChangeColumns) + where + " ORDER BY c.id"), ...,
         uses);
    for (const soci::row& row : rows) out.push_back(change_from(row));
    return out;
}

std::vector<RecordedChange> changes_of_series(HistoryDb& db, const SeriesKey& key) {
    return changes_where(db,
                         "WHERE c.machine_id = :m AND c.workload_id = :w AND c.load = :l AND "
                         "c.measure = :s",
                         soci::use(key.machine_id), soci::use(key.workload_id), soci::use(key.load),
                         soci::use(key.measure));
}

// Where a recorded change lies among the points looked at: its first point
// after (its before's next where its after is not among them); -1: neither.
long long place_of(const RecordedChange& c, const std::map<long long, std::size_t>& at) {
    if (auto a = at.find(c.after_kernel); a != at.end()) return static_cast<long long>(a->second);
    if (auto b = at.find(c.before_kernel); b != at.end())
        return static_cast<long long>(b->second) + 1;
    return -1;
}

// The recorded change nearest `index`, the same way, within the tolerance,
// not already taken by this look.
const RecordedChange* nearest(const std::vector<RecordedChange>& recorded,
                              const std::map<long long, std::size_t>& at, std::size_t index,
                              double moved, const std::vector<long long>& taken) {
    const RecordedChange* best = nullptr;
    long long best_distance = 0;
    for (const RecordedChange& r : recorded) {
        if ((r.moved > 0) != (moved > 0)) continue;
        if (std::find(taken.begin(), taken.end(), r.id) != taken.end()) continue;
        const long long place = place_of(r, at);
        if (place < 0) continue;
        const long long distance = std::llabs(place - static_cast<long long>(index));
        if (distance > static_cast<long long>(kPlaceTolerance)) continue;
        if (!best || distance < best_distance) best = &r, best_distance = distance;
    }
    return best;
}

std::map<long long, std::size_t> places(const std::vector<long long>& point_kernels) {
    std::map<long long, std::size_t> at;
    for (std::size_t i = 0; i < point_kernels.size(); ++i) at.emplace(point_kernels[i], i);
    return at;
}

}  // namespace

const char* triage_status_name(TriageStatus s) {
    for (const auto& [status, name] : kNames)
        if (status == s) return name;
    return "?";
}

std::optional<TriageStatus> parse_triage_status(const std::string& text) {
    for (const auto& [status, name] : kNames)
        if (text == name) return status;
    return std::nullopt;
}

std::string triage_status_names() {
    std::vector<std::string> names;
    for (const auto& [status, name] : kNames) names.push_back(name);
    return join(names, ", ");
}

bool robot_leaves(TriageStatus s) {
    return s == TriageStatus::acknowledged || s == TriageStatus::invalid ||
           s == TriageStatus::wontfix || s == TriageStatus::downstream || s == TriageStatus::fixed;
}

std::optional<long long> parse_change_id(const std::string& text) {
    static const std::regex shape(R"(#?([1-9][0-9]{0,15}))");
    std::smatch m;
    if (!std::regex_match(text, m, shape)) return std::nullopt;
    return std::stoll(m[1]);
}

bool bug_url_ok(const std::string& text) {
    static const std::regex shape(R"(https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[!-~]*)?)");
    return text.size() <= 2048 && std::regex_match(text, shape);
}

std::vector<RecordedChange> record_changes(HistoryDb& db, const SeriesKey& key,
                                           const std::vector<long long>& point_kernels,
                                           const std::vector<ChangePoint>& found,
                                           const std::string& by, const std::string& now) {
    std::vector<long long> ids;
    db.guarded(
        "recording the changes of " + printable(key.text()), [&] {
            db.in_transaction([&] {
                const std::vector<RecordedChange> recorded = changes_of_series(db, key);
                const auto at = places(point_kernels);
                for (const ChangePoint& c : found) {
                    if (c.index == 0 || c.index >= point_kernels.size()) continue;
                    const long long before = point_kernels[c.index - 1],
                                    after = point_kernels[c.index];
                    if (const RecordedChange* r = nearest(recorded, at, c.index, c.change, ids)) {
                        session_of(db)
                            << "UPDATE changes SET before_kernel_id = :b, after_kernel_id = :a, "
                               "moved = :m, p = :p, seen_at = :n WHERE id = :id",
                            soci::use(before), soci::use(after), soci::use(c.change),
                            soci::use(c.p), soci::use(now), soci::use(r->id);
                        ids.push_back(r->id);
                        continue;
                    }
                    // A regression back: after a change of this series, the same
                    // way, that was marked fixed.
                    long long back_after = 0, back_place = -1;
                    for (const RecordedChange& r : recorded) {
                        const long long place = place_of(r, at);
                        if (r.status == TriageStatus::fixed && (r.moved > 0) == (c.change > 0) &&
                            place >= 0 && place < static_cast<long long>(c.index) &&
                            place > back_place)
                            back_after = r.id, back_place = place;
                    }
                    long long id = 0;
                    const std::string untriaged = triage_status_name(TriageStatus::untriaged);
                    session_of(db)
                        << "INSERT INTO changes (machine_id, workload_id, load, measure, "
                           "before_kernel_id, after_kernel_id, moved, p, status, back_after, "
                           "found_at, seen_at) VALUES (:mi, :wi, :l, :s, :b, :a, :m, :p, :st, "
                           ":ba, :n, :n2) RETURNING id",
                        soci::use(key.machine_id), soci::use(key.workload_id), soci::use(key.load),
                        soci::use(key.measure), soci::use(before), soci::use(after),
                        soci::use(c.change), soci::use(c.p), soci::use(untriaged),
                        soci::use(back_after), soci::use(now), soci::use(now), soci::into(id);
                    const std::string note = "found", none;
                    const long long no_change = 0;
                    session_of(db)
                        << "INSERT INTO change_triage (change_id, status, note, bug, of_change, "
                           "by_whom, triaged_at) VALUES (:c, :s, :n, :b, :o, :w, :t)",
                        soci::use(id), soci::use(untriaged), soci::use(note), soci::use(none),
                        soci::use(no_change), soci::use(by), soci::use(now);
                    ids.push_back(id);
                }
            });
        });
    std::vector<RecordedChange> out;
    for (long long id : ids) out.push_back(recorded_change(db, id));
    return out;
}

std::optional<RecordedChange> recorded_change_at(HistoryDb& db, const SeriesKey& key,
                                                 const std::vector<long long>& point_kernels,
                                                 std::size_t index, double moved) {
    const std::vector<RecordedChange> recorded =
        db.guarded("reading the changes of " + printable(key.text()),
                   [&] { return changes_of_series(db, key); });
    const RecordedChange* r = nearest(recorded, places(point_kernels), index, moved, {});
    if (!r) return std::nullopt;
    return *r;
}

RecordedChange recorded_change(HistoryDb& db, long long id) {
    const auto found = db.guarded("reading change " + std::to_string(id), [&] {
        return changes_where(db, "WHERE c.id = :id", soci::use(id));
    });
    if (found.empty())
        throw UsageError("no change " + std::to_string(id) + " in " + db.target().shown +
                         " (contest history changes lists them with their ids)");
    return found.front();
}

std::vector<RecordedChange> recorded_changes(HistoryDb& db, std::optional<TriageStatus> only) {
    const std::string status = only ? triage_status_name(*only) : "";
    return db.guarded("reading its changes", [&] {
        return only ? changes_where(db, "WHERE c.status = :s", soci::use(status))
                    : changes_where(db, "");
    });
}

std::vector<TriageEntry> triage_history(HistoryDb& db, long long id) {
    std::vector<TriageEntry> out;
    db.guarded("reading the triage of change " + std::to_string(id), [&] {
        soci::rowset<soci::row> rows =
            (session_of(db).prepare
                 << "SELECT status, note, bug, by_whom, triaged_at, of_change FROM "
                    "change_triage WHERE change_id = :c ORDER BY id",
             soci::use(id));
        for (const soci::row& row : rows) {
            TriageEntry e;
            e.status = status_of(row.get<std::string>(0));
            e.note = row.get<std::string>(1);
            e.bug = row.get<std::string>(2);
            e.by = row.get<std::string>(3);
            e.at = row.get<std::string>(4);
            e.of = integer_at(row, 5);
            out.push_back(std::move(e));
        }
    });
    return out;
}

RecordedChange triage_change(HistoryDb& db, const TriageRequest& r, const std::string& now) {
    const std::string change = "change " + std::to_string(r.change);
    if (!r.bug.empty() && !bug_url_ok(r.bug))
        throw UsageError("contest history triage: --bug '" + printable(r.bug) +
                         "' is not a URL (http:// or https:// and a host)");
    if (r.status == TriageStatus::downstream && r.of == 0)
        throw UsageError("contest history triage: downstream of which change? (--of CHANGE)");
    if (r.status != TriageStatus::downstream && r.of != 0)
        throw UsageError("contest history triage: --of goes with --status downstream only");
    if (r.of == r.change && r.of != 0)
        throw UsageError("contest history triage: " + change + " cannot be downstream of itself");
    recorded_change(db, r.change);
    if (r.of != 0) recorded_change(db, r.of);
    const std::string status = triage_status_name(r.status);
    db.guarded("triaging " + change, [&] {
        db.in_transaction([&] {
            session_of(db) << "INSERT INTO change_triage (change_id, status, note, bug, of_change, "
                              "by_whom, triaged_at) VALUES (:c, :s, :n, :b, :o, :w, :t)",
                soci::use(r.change), soci::use(status), soci::use(r.note), soci::use(r.bug),
                soci::use(r.of), soci::use(r.by), soci::use(now);
            session_of(db) << "UPDATE changes SET status = :s WHERE id = :c", soci::use(status),
                soci::use(r.change);
        });
    });
    return recorded_change(db, r.change);
}

std::string group_key(const RecordedChange& c) {
    if (!c.before_commit.empty() && !c.after_commit.empty())
        return c.before_commit + ".." + c.after_commit;
    return "k" + std::to_string(c.before_kernel) + "..k" + std::to_string(c.after_kernel);
}

std::vector<ChangeGroup> group_changes(std::vector<RecordedChange> changes) {
    const auto size = [](const RecordedChange& c) { return std::fabs(c.moved); };
    std::stable_sort(changes.begin(), changes.end(),
                     [&](const auto& a, const auto& b) { return size(a) > size(b); });
    std::vector<ChangeGroup> groups;
    std::map<std::string, std::size_t> at;
    for (RecordedChange& c : changes) {
        const std::string key = group_key(c);
        auto [it, added] = at.emplace(key, groups.size());
        if (added) {
            ChangeGroup& g = groups.emplace_back();
            g.key = key;
            g.before_name = c.before_name;
            g.after_name = c.after_name;
        }
        groups[it->second].changes.push_back(std::move(c));
    }
    for (ChangeGroup& g : groups) {
        const auto& cs = g.changes;
        const bool one = std::all_of(cs.begin(), cs.end(),
                                     [&](const auto& c) { return c.status == cs.front().status; });
        const bool any_untriaged = std::any_of(cs.begin(), cs.end(), [](const auto& c) {
            return c.status == TriageStatus::untriaged;
        });
        g.status = one || !any_untriaged ? cs.front().status : TriageStatus::untriaged;
    }
    return groups;
}

bool claim_group_mail(HistoryDb& db, const std::string& group, const std::string& first_bad,
                      const std::string& mail, const std::string& claimant,
                      const std::string& now) {
    bool mine = false;
    db.guarded("claiming the mail of " + printable(group), [&] {
        db.in_transaction([&] {
            // PostgreSQL: claims of one database one at a time (its own key).
            if (db.postgresql()) session_of(db) << "SELECT pg_advisory_xact_lock(5701058)";
            std::string by;
            soci::indicator ind = soci::i_null;
            session_of(db)
                << "SELECT claimant FROM change_mails WHERE group_key = :g OR first_bad = :f "
                   "ORDER BY mailed_at LIMIT 1",
                soci::use(group), soci::use(first_bad), soci::into(by, ind);
            if (ind == soci::i_ok && session_of(db).got_data()) {
                mine = by == claimant;
                return;
            }
            session_of(db) << "INSERT INTO change_mails (group_key, first_bad, mail, claimant, "
                              "mailed_at) VALUES (:g, :f, :m, :c, :t)",
                soci::use(group), soci::use(first_bad), soci::use(mail), soci::use(claimant),
                soci::use(now);
            mine = true;
        });
    });
    return mine;
}

}  // namespace contest::history
