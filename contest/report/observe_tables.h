#pragma once
// The extra blocks of `contest report --perf` and `--psi` (docs/observe.md):
// per load and label, the means over its successful runs of what the perf
// counters and the timeline's window totals recorded. One table model that
// every exporter renders, so text, markdown, csv and json agree.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"
#include "contest/report/report_options.h"

namespace contest {

struct ObserveTable {
    std::string name;                  // "perf", "psi": the json key and csv's first column
    std::string title;                 // the heading over the block
    std::vector<std::string> columns;  // after Load and Label
    std::vector<int> decimals;         // per column, for text and markdown
    struct Row {
        std::string load, label;
        // A number, null (nothing recorded) or "not counted" (the reason is
        // in notes).
        std::vector<nlohmann::json> cells;
    };
    std::vector<Row> rows;
    std::vector<std::string> notes;  // what a column means, why one was not counted
};

// --perf: task-clock, context switches, migrations, faults, IPC and miss rates.
ObserveTable perf_table(const ReportModel& model);
// --psi: PSI some/full as % of the window, and the vmstat deltas.
ObserveTable psi_table(const ReportModel& model);

// The tables ReportOptions asks for, in order.
std::vector<ObserveTable> observe_tables(const ReportModel& model, const ReportOptions& options);

// A cell as text: fixed decimals, "-" for null, strings as they are.
std::string observe_cell_text(const nlohmann::json& cell, int decimals);

}  // namespace contest
