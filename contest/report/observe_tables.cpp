#include "contest/report/observe_tables.h"

#include <functional>
#include <map>
#include <set>

#include "contest/analysis/measures.h"
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

// A measure of the table (contest/analysis/measures.h) as its run recorded
// it, times `scale` (task-clock's ns as s, a miss rate as %), or why not.
Column measure_column(const char* heading, const char* measure, int decimals, double scale = 1) {
    const Measure& m = measure_named(measure);
    return {heading, decimals, [&m, scale](const RunRecord& r) -> json {
                json v = measure_reading(r, m);
                return v.is_number() ? json(v.get<double>() * scale) : v;
            }};
}

// The sum of the vmstat deltas over the window whose names are listed.
Column vmstat_sum(const char* heading, std::vector<std::string> names) {
    return {heading, 0, [names](const RunRecord& r) -> json { return vmstat_reading(r, names); }};
}

}  // namespace

ObserveTable perf_table(const ReportModel& model) {
    ObserveTable t;
    t.name = "perf";
    t.title = "perf counters on the workload's process tree (mean per run, --perf)";
    t.notes.push_back(
        "counts scaled by time enabled / time running; task-clock in CPU seconds; "
        "cache-miss% of cache references, branch-miss% of branches");
    t = build(model, t,
              {measure_column("task-clock s", "perf_task_clock", 2, 1e-9),
               measure_column("ctx-switches", "perf_context_switches", 0),
               measure_column("migrations", "perf_cpu_migrations", 0),
               measure_column("page-faults", "perf_page_faults", 0),
               measure_column("major-faults", "perf_major_faults", 0),
               measure_column("IPC", "perf_ipc", 2),
               measure_column("cache-miss%", "perf_cache_miss_rate", 2, 100),
               measure_column("branch-miss%", "perf_branch_miss_rate", 2, 100)});
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
        {measure_column("cpu some%", "psi_cpu_some_pct", 2),
         measure_column("cpu full%", "psi_cpu_full_pct", 2),
         measure_column("mem some%", "psi_memory_some_pct", 2),
         measure_column("mem full%", "psi_memory_full_pct", 2),
         measure_column("io some%", "psi_io_some_pct", 2),
         measure_column("io full%", "psi_io_full_pct", 2),
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
