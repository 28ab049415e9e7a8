// Markdown for web forums and issue trackers: one table per load, with the
// statistics (CI, change, p) carried by default since space is not tight.
#include <sstream>
#include <string>
#include <vector>

#include "contest/report/formats.h"
#include "contest/report/observe_tables.h"

namespace contest {

namespace {

// A '|' inside a label would end the cell.
std::string escape_cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|' || c == '\\' || c == '*' || c == '_') out += '\\';
        out += c;
    }
    return out;
}

std::string table_row(const std::vector<std::string>& cells) {
    std::string line = "|";
    for (const auto& c : cells) line += " " + c + " |";
    return line + "\n";
}

// Per load, per probe, a table with one row per label.
std::string latency_tables(const ReportModel& model) {
    std::string out;
    for (const auto& block : model.blocks)
        for (std::size_t i = 0; i < block.latency.size(); ++i) {
            const auto& row = block.latency[i];
            if (i == 0 || block.latency[i - 1].probe != row.probe) {
                if (!out.empty()) out += "\n";  // a table ends at a blank line
                out += "### " + escape_cell(block.load) + ": " + row.probe + " latency (us)\n\n";
                out += table_row(latency_header()) + "|:--|--:|--:|--:|--:|--:|--:|--:|--:|\n";
            }
            auto cells = latency_cells(row);
            const std::string mark = cells.back();
            cells.pop_back();
            cells.front() = escape_cell(cells.front());
            if (!mark.empty()) {
                cells.back() += ' ';
                cells.back() += escape_cell(mark);
            }
            out += table_row(cells);
        }
    std::istringstream legend(latency_legend(model));
    for (std::string line; std::getline(legend, line);) {
        out += '\n';
        out += escape_cell(line);
        out += '\n';
    }
    return out;
}

}  // namespace

std::string format_markdown(const ReportModel& model, const ReportOptions& options) {
    if (options.latency_only) return has_latency(model) ? latency_tables(model) : "";
    std::string out;
    for (const auto& block : model.blocks) {
        out += "### " + escape_cell(block.load) + "\n\n";
        out += table_row({"Kernel", "Runs", "Time (s)", "± 95% CI", "CPU%", "Loads", "LCPU%",
                          "Ratio", "Change", "p-adj"});
        out += "|:--|--:|--:|--:|--:|--:|--:|--:|--:|:--|\n";
        const int loads_digits = loads_decimals(block);
        const int time_digits = time_decimals(model);
        for (const auto& cell : block.cells) {
            std::string change = "-", p = "-";
            if (cell.is_baseline) {
                change = "baseline";
            } else if (cell.versus) {
                change = signed_percent(cell.versus->change_pct);
                if (cell.versus->time_test) p = format_p(cell.versus->time_test->p_adjusted);
            }
            const std::string mark = significance_mark(cell);
            if (!mark.empty()) p += " " + escape_cell(mark);
            out += table_row(
                {escape_cell(cell.label), cell.runs_text(), fixed(cell.time.mean, time_digits),
                 fixed(cell.time.ci95_half, time_digits), fixed(cell.cpu_pct.mean, 1),
                 fixed(cell.load_units.mean, loads_digits), fixed(cell.load_cpu_pct.mean, 1),
                 cell.ratio ? fixed(*cell.ratio, 2) : "-", change, p});
        }
        out += "\n";
    }
    out += "Loads are counted while the workload runs, in:\n\n";
    for (const auto& block : model.blocks)
        out += "- " + escape_cell(block.load) + ": " + unit_description(block) + "\n";
    out +=
        "\nTime is the mean wall time in seconds of the successful runs; ± is the half-width of "
        "its 95% confidence interval (Student t); Ratio is Time over the same kernel's no_load "
        "Time; Change and p-adj (Welch's t-test, adjusted: " +
        correction_summary(model) + ") compare with the baseline.\n";
    for (const auto& note : model.notes) out += "\n" + escape_cell(note) + "\n";
    if (const auto legend = significance_legend(model); !legend.empty())
        out += "\n" + escape_cell(legend) + "\n";
    // --perf, --psi
    for (const auto& table : observe_tables(model, options)) {
        out += "\n### ";
        out += escape_cell(table.title);
        out += "\n\n";
        std::vector<std::string> head = {"Load", "Kernel"};
        std::string align = "|:--|:--|";
        for (const auto& c : table.columns) {
            head.push_back(escape_cell(c));
            align += "--:|";
        }
        out += table_row(head) + align + "\n";
        for (const auto& r : table.rows) {
            std::vector<std::string> cells = {escape_cell(r.load), escape_cell(r.label)};
            for (std::size_t c = 0; c < r.cells.size(); ++c)
                cells.push_back(observe_cell_text(r.cells[c], table.decimals[c]));
            out += table_row(cells);
        }
        out += "\n";
        for (const auto& note : table.notes) {
            out += "- ";
            out += escape_cell(note);
            out += '\n';
        }
    }
    if (has_latency(model)) out += "\n" + latency_tables(model);
    return out;
}

}  // namespace contest
