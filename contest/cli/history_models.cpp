#include "contest/cli/history_models.h"

#include <set>

#include "contest/history/pg_uri.h"

namespace contest {

using namespace contest::history;

namespace {

// The commands that look at a change closer: compare of the two kernels'
// labels, and bisect between their commits where both are builds of one tree,
// its batches kept in the database read here (--db as given, a password in
// the URI left out).
std::vector<std::vector<std::string>> next_steps(const AlertCommands& a, const KernelPoint& before,
                                                 const KernelPoint& after) {
    std::vector<std::vector<std::string>> out;
    if (!before.labels.empty() && !after.labels.empty()) {
        std::vector<std::string> words = {"contest", "compare"};
        if (a.results_dir != "results") words.insert(words.end(), {"--results", a.results_dir});
        words.insert(words.end(), {before.labels.front(), after.labels.front()});
        out.push_back(words);
    }
    if (!before.commit.empty() && !after.commit.empty() && before.tree == after.tree &&
        before.commit != after.commit) {
        std::vector<std::string> words = {"contest", "bisect",
                                          "--good",  before.tree + "@" + before.commit,
                                          "--bad",   after.tree + "@" + after.commit,
                                          "--"};
        if (!a.db.empty())
            words.insert(words.end(),
                         {"--db", is_postgresql_uri(a.db) ? without_password(a.db) : a.db});
        words.push_back("LOADS...");
        out.push_back(words);
    }
    return out;
}

HistoryAlertChange alert_change(const RecordedChange& r, const LookedChange& l, PointsBy by) {
    return {.id = r.id,
            .status = triage_status_name(r.status),
            .triaged = r.status != TriageStatus::untriaged,
            .series = l.key.text(),
            .change = l.change,
            .points = l.points,
            .order = kernel_order_name(l.order),
            .before = kernel_name(l.before, by),
            .after = kernel_name(l.after, by),
            .back_after = r.back_after,
            .by = r.by,
            .at = r.at,
            .bug = r.bug,
            .note = r.note,
            .of = r.of};
}

}  // namespace

std::string kernel_name(const KernelPoint& p, PointsBy by) {
    std::string name = p.release.empty() ? "?" : p.release;
    if (!p.commit.empty()) name += " @" + p.commit.substr(0, 12);
    if (by == PointsBy::file) name += " " + p.first_run_at;
    return name;
}

const char* points_word(PointsBy by) {
    return by == PointsBy::file ? " files" : " kernels";
}

HistorySeriesList series_list_model(const std::string& database,
                                    const std::vector<SeriesInfo>& series, std::size_t hidden) {
    HistorySeriesList list{database, {}, hidden};
    for (const auto& s : series)
        list.series.push_back({s.key.text(), s.kernels, s.runs, s.machine, s.workload});
    return list;
}

HistorySeriesPoints series_points_model(const SeriesKey& key, const SeriesPoints& s, PointsBy by) {
    HistorySeriesPoints out{
        key.text(), s.info.machine, s.info.workload, points_word(by), kernel_order_name(s.order),
        {}};
    for (const auto& p : s.points) out.points.push_back({kernel_name(p, by), p.values, p.labels});
    return out;
}

HistoryChanges changes_model(const ChangesLook& look, const std::vector<ChangeGroup>& groups,
                             const std::map<long long, const LookedChange*>& by_id,
                             const ChangePointOptions& options, PointsBy by,
                             const AlertCommands& commands) {
    HistoryChanges h;
    h.series = look.series;
    h.level = options.level;
    h.alpha = options.alpha;
    h.min_segment = options.min_segment;
    h.min_change = options.min_change;
    h.points_word = points_word(by);
    h.found = look.found;
    h.shown = look.shown;
    h.only = look.only;
    for (const ChangeGroup& g : groups) {
        HistoryAlert alert;
        alert.status = triage_status_name(g.status);
        alert.before = g.before_name;
        alert.after = g.after_name;
        std::set<std::string> measures, loads, hosts;
        for (const RecordedChange& r : g.changes) {
            measures.insert(r.series.measure);
            loads.insert(r.series.load);
            hosts.insert(r.machine);
            alert.changes.push_back(alert_change(r, *by_id.at(r.id), by));
        }
        alert.measures = measures.size();
        alert.loads = loads.size();
        alert.hosts = hosts.size();
        const LookedChange& first = *by_id.at(g.changes.front().id);
        alert.commands = next_steps(commands, first.before, first.after);
        h.alerts.push_back(std::move(alert));
    }
    return h;
}

}  // namespace contest
