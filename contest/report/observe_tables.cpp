#include "contest/report/observe_tables.h"

#include <functional>
#include <map>
#include <set>

#include "contest/report/formats.h"

namespace contest {

namespace {

using nlohmann::json;

// One column: its heading, decimals, and what it takes from a run: a
// number, or a string saying why there is none ("" when the run has no
// record at all).
struct Column {
    const char* heading;
    int decimals;
    std::function<json(const RunRecord&)> value;
};

const json* find_path(const json& root, std::initializer_list<const char*> keys) {
    const json* at = &root;
    for (const char* k : keys) {
        if (!at->is_object()) return nullptr;
        auto it = at->find(k);
        if (it == at->end()) return nullptr;
        at = &*it;
    }
    return at;
}

// Means over the ok runs of each cell (table.notes already holds what the
// columns mean; the reasons for "not counted" follow); a column no run had a number for is
// "not counted" when some run said why (the reasons go to notes), else null.
ObserveTable build(const ReportModel& model, ObserveTable table, const std::vector<Column>& cols) {
    std::map<std::string, std::set<std::string>> not_counted;  // reason -> columns
    for (const auto& c : cols) {
        table.columns.push_back(c.heading);
        table.decimals.push_back(c.decimals);
    }
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            ObserveTable::Row row{block.load, cell.label, {}};
            for (const auto& c : cols) {
                double sum = 0;
                int n = 0;
                std::string why;
                for (const auto& r : cell.runs) {
                    if (!r.run.ok()) continue;
                    const json v = c.value(r.run);
                    if (v.is_number()) {
                        sum += v.get<double>();
                        ++n;
                    } else if (v.is_string() && why.empty()) {
                        why = v.get<std::string>();
                    }
                }
                if (n > 0) {
                    row.cells.push_back(sum / n);
                } else if (!why.empty()) {
                    row.cells.push_back("not counted");
                    not_counted[why].insert(c.heading);
                } else {
                    row.cells.push_back(nullptr);
                }
            }
            table.rows.push_back(std::move(row));
        }
    for (const auto& [why, headings] : not_counted)
        table.notes.push_back(
            "not counted: " +
            join_list(std::vector<std::string>(headings.begin(), headings.end())) + ": " + why);
    return table;
}

// A perf event's scaled count (times scale), or why it was not counted.
Column perf_event(const char* heading, const char* event, int decimals, double scale = 1) {
    return {heading, decimals, [event, scale](const RunRecord& r) -> json {
                const json* e = find_path(r.perf, {"events", event});
                if (!e) return nullptr;
                if (e->value("counted", false) && e->contains("value"))
                    return (*e)["value"].get<double>() * scale;
                return e->value("reason", std::string("never ran"));
            }};
}

// IPC and the miss rates: a number, or why not: the reason of `event` (a
// half of the rate) when it was not counted, else the rate's own.
Column perf_derived(const char* heading, const char* key, double scale, const char* event) {
    return {heading, 2, [key, scale, event](const RunRecord& r) -> json {
                const json* d = find_path(r.perf, {key});
                if (!d) return nullptr;
                if (d->is_number()) return d->get<double>() * scale;
                const json* e = find_path(r.perf, {"events", event});
                if (e && !e->value("counted", false) && e->contains("reason"))
                    return std::string(event) + " " + (*e)["reason"].get<std::string>();
                return d->value("reason", std::string("not counted"));
            }};
}

Column psi_pct(const char* heading, const char* resource, const char* kind) {
    return {heading, 2, [resource, kind](const RunRecord& r) -> json {
                const json* psi = find_path(r.timeline, {"totals", "psi"});
                if (!psi) return nullptr;
                if (!psi->value("available", false))
                    return psi->value("reason", std::string("no PSI"));
                const json* v = find_path(*psi, {resource, kind});
                return v && v->is_number() ? *v : json();
            }};
}

// The sum of the vmstat deltas whose names are listed (pgscan_kswapd +
// pgscan_direct: the split by cause of one figure).
Column vmstat_sum(const char* heading, std::vector<std::string> names) {
    return {heading, 0, [names](const RunRecord& r) -> json {
                const json* vm = find_path(r.timeline, {"totals", "vmstat"});
                if (!vm) return nullptr;
                if (vm->contains("reason")) return (*vm)["reason"];
                double sum = 0;
                bool any = false;
                for (const auto& n : names)
                    if (auto it = vm->find(n); it != vm->end() && it->is_number()) {
                        sum += it->get<double>();
                        any = true;
                    }
                return any ? json(sum) : json();
            }};
}

}  // namespace

ObserveTable perf_table(const ReportModel& model) {
    ObserveTable t;
    t.name = "perf";
    t.title = "perf counters on the workload's process tree (mean per run, --perf)";
    t.notes.push_back(
        "counts scaled by time enabled / time running; task-clock in CPU seconds; "
        "cache-miss% of cache references, branch-miss% of branches");
    t = build(
        model, t,
        {perf_event("task-clock s", "task-clock", 2, 1e-9),
         perf_event("ctx-switches", "context-switches", 0),
         perf_event("migrations", "cpu-migrations", 0), perf_event("page-faults", "page-faults", 0),
         perf_event("major-faults", "major-faults", 0), perf_derived("IPC", "ipc", 1, "cycles"),
         perf_derived("cache-miss%", "cache_miss_rate", 100, "cache-misses"),
         perf_derived("branch-miss%", "branch_miss_rate", 100, "branch-misses")});
    return t;
}

ObserveTable psi_table(const ReportModel& model) {
    ObserveTable t;
    t.name = "psi";
    t.title = "pressure stalls (% of the run's window) and vmstat deltas (mean per run)";
    t.notes.push_back(
        "the whole machine over each run's timeline window (workload, load and all else); "
        "some: at least one task stalled, full: all non-idle tasks stalled");
    t = build(
        model, t,
        {psi_pct("cpu some%", "cpu", "some_pct"), psi_pct("cpu full%", "cpu", "full_pct"),
         psi_pct("mem some%", "memory", "some_pct"), psi_pct("mem full%", "memory", "full_pct"),
         psi_pct("io some%", "io", "some_pct"), psi_pct("io full%", "io", "full_pct"),
         vmstat_sum("pgscan", {"pgscan_kswapd", "pgscan_direct", "pgscan_khugepaged"}),
         vmstat_sum("pgsteal", {"pgsteal_kswapd", "pgsteal_direct", "pgsteal_khugepaged"}),
         vmstat_sum("allocstall", {"allocstall_dma", "allocstall_dma32", "allocstall_normal",
                                   "allocstall_movable", "allocstall_device"}),
         vmstat_sum("compact_stall", {"compact_stall"}), vmstat_sum("pswpin", {"pswpin"}),
         vmstat_sum("pswpout", {"pswpout"}), vmstat_sum("thp_fault_alloc", {"thp_fault_alloc"}),
         vmstat_sum("pgmajfault", {"pgmajfault"})});
    return t;
}

std::vector<ObserveTable> observe_tables(const ReportModel& model, const ReportOptions& options) {
    std::vector<ObserveTable> out;
    if (options.perf) out.push_back(perf_table(model));
    if (options.psi) out.push_back(psi_table(model));
    return out;
}

std::string observe_cell_text(const json& cell, int decimals) {
    if (cell.is_number()) return fixed(cell.get<double>(), decimals);
    if (cell.is_string()) return cell.get<std::string>();
    return "-";
}

}  // namespace contest
