// The classic contest table, as it goes to a terminal or a mailing-list post.
#include <string>
#include <vector>

#include "contest/report/cell_columns.h"
#include "contest/report/formats.h"
#include "contest/report/latency_tables.h"
#include "contest/report/measure_changes_text.h"
#include "contest/report/observe_tables.h"
#include "contest/report/outside_text.h"
#include "contest/report/report_options.h"
#include "contest/report/spike_timeline.h"
#include "contest/report/text_tables.h"

namespace contest {

namespace {

std::vector<std::string> header(bool with_stats) {
    std::vector<std::string> h;
    for (const auto& column : cell_columns())
        if (with_stats || !column.stats_only) h.emplace_back(column.text_heading);
    return h;
}

std::vector<std::string> row(const Cell& cell, const CellDigits& digits, bool with_stats) {
    std::vector<std::string> r;
    for (const auto& column : cell_columns())
        if (with_stats || !column.stats_only) r.push_back(column.text(cell, digits));
    r.push_back(significance_mark(cell));
    return r;
}

// With --stats: what the statistics columns mean, and the tests behind them.
std::string text_statistics(const ReportModel& model) {
    std::string out =
        "±CI: 95% confidence interval of Time (Student t); ±R: of Ratio; pR: the load's "
        "effect on Time (Ratio = 1?), adjusted; Change: Time against the baseline " +
        model.baseline + "; p-adj: its test's p, adjusted (" + correction_summary(model) +
        "); could see: the smallest true change the test finds 4 times in 5 (80% power at " +
        "level " + six_digits(model.detection_level) + ")\n\nTests:\n";
    for (const auto& line : align_columns(
             test_rows(model), {false, false, false, false, true, true, true, true, true, false}))
        out += "  " + line + "\n";
    return out;
}

// With --stats: what else changed, each label against the baseline.
std::string text_measure_changes(const ReportModel& model) {
    std::string out;
    for (const auto& label : model.labels) {
        if (label.label == model.baseline) continue;
        const auto changes = measure_changes(model, model.baseline, label.label);
        if (changes.empty()) continue;
        out += "\nnew: " + label.label + ", base: the baseline " + model.baseline +
               measure_changes_text(changes, model);
    }
    return out;
}

// A --perf or --psi table, aligned, a row per load and label.
std::string text_observe_table(const ObserveTable& table) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head = {"Load", "Kernel"};
    head.insert(head.end(), table.columns.begin(), table.columns.end());
    rows.push_back(head);
    for (const auto& r : table.rows) {
        std::vector<std::string> cells = {r.load, r.label};
        for (std::size_t c = 0; c < r.cells.size(); ++c)
            cells.push_back(observe_cell_text(r.cells[c], table.decimals[c]));
        rows.push_back(std::move(cells));
    }
    std::vector<bool> right(head.size(), true);
    right[0] = right[1] = false;
    std::string out = "\n" + table.title + ":\n";
    for (const auto& line : align_columns(rows, right)) out += "  " + line + "\n";
    for (const auto& note : table.notes) out += "  " + note + "\n";
    return out;
}

}  // namespace

std::string latency_tables(const ReportModel& model, bool narrow) {
    // Kernel .. Missed%, and the mark after the last column.
    auto cut = [narrow](std::vector<std::string> cells) {
        if (narrow) cells.erase(cells.begin() + 7, cells.begin() + 10);
        return cells;
    };
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> titles;  // "" for a row that is not a block's first
    for (const auto& block : model.blocks)
        for (std::size_t i = 0; i < block.latency.size(); ++i) {
            const auto& row = block.latency[i];
            if (i == 0 || block.latency[i - 1].probe != row.probe) {
                titles.push_back(block.load + ": " + row.probe + " latency (us)");
                rows.push_back(cut(latency_header()));
            }
            titles.push_back("");
            rows.push_back(cut(latency_cells(row)));
        }
    std::vector<bool> right(cut(latency_header()).size() + 1, true);
    right.front() = false;
    right.back() = false;
    const auto lines = align_columns(rows, right);
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!titles[i].empty()) out += titles[i] + ":\n";
        out += lines[i] + "\n";
    }
    return out;
}

std::string latency_blocks(const ReportModel& model, bool narrow) {
    std::string out = latency_tables(model, narrow) + latency_legend(model) + "\n";
    // The mail's 76 columns keep the tables only; the shares are in the report.
    if (!narrow) {
        for (const auto& line : latency_why_lines(model)) out += "why: " + line + "\n";
        for (const auto& spike : worst_spikes(model))
            for (const auto& line : spike_timeline_lines(spike)) out += line + "\n";
    }
    return out;
}

std::string text_load_tables(const ReportModel& model, bool with_stats) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& block : model.blocks) {
        rows.push_back(header(with_stats));
        for (const auto& cell : block.cells)
            rows.push_back(row(cell, {time_decimals(model), loads_decimals(block)}, with_stats));
    }
    std::vector<bool> right(header(with_stats).size() + 1, true);
    right.front() = false;  // Kernel
    right.back() = false;   // the mark
    const auto lines = align_columns(rows, right);

    std::string out;
    std::size_t next = 0;
    for (const auto& block : model.blocks) {
        out += block.load + ":\n";
        for (std::size_t i = 0; i <= block.cells.size(); ++i) out += lines[next++] + "\n";
    }
    return out;
}

std::string text_units(const ReportModel& model) {
    std::vector<std::vector<std::string>> units;
    for (const auto& block : model.blocks)
        units.push_back({block.load + ":", unit_description(block)});
    std::string out = "\nLoads are counted while the workload runs, in:\n";
    for (const auto& line : align_columns(units, {false, false})) out += "  " + line + "\n";
    return out;
}

std::string format_text(const ReportModel& model, const ReportOptions& options) {
    if (options.latency_only) return model.has_latency() ? latency_blocks(model) : "";
    std::string out = text_load_tables(model, options.stats);
    out += text_units(model);
    for (const auto& note : model.notes) out += note + "\n";
    if (const auto legend = significance_legend(model); !legend.empty()) out += legend + "\n";
    if (const auto outside =
            outside_text(model, outside_rows(model, "", true), model.labels.size() > 1);
        !outside.empty())
        out += "\n" + outside;
    if (options.stats) out += text_statistics(model) + text_measure_changes(model);
    for (const auto& table : observe_tables(model, options)) out += text_observe_table(table);
    if (model.has_latency()) out += "\n" + latency_blocks(model);
    return out;
}

}  // namespace contest
