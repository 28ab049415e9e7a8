// Markdown for web forums and issue trackers: one table per load, with the
// statistics (CI, change, p) carried by default since space is not tight.
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "contest/report/cell_columns.h"
#include "contest/report/formats.h"
#include "contest/report/latency_tables.h"
#include "contest/report/observe_tables.h"
#include "contest/report/outside_text.h"
#include "contest/report/report_options.h"
#include "contest/report/spike_timeline.h"

namespace contest {

namespace {

// A '|' inside a label would end the cell, and a label or a reason from a
// result file is not the page's markup: a '<' before a letter, '/', '!' or
// '?' would open an HTML tag in a viewer (one before a space or a digit,
// as in "p < 0.05", opens nothing), a '[' a link, a '`' code.
std::string escape_cell(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        const bool opens_tag = c == '<' && (std::isalpha(static_cast<unsigned char>(next)) ||
                                            next == '/' || next == '!' || next == '?');
        if (c == '|' || c == '\\' || c == '*' || c == '_' || c == '[' || c == ']' || c == '`' ||
            opens_tag)
            out += '\\';
        out += c;
    }
    return out;
}

std::string table_row(const std::vector<std::string>& cells) {
    std::string line = "|";
    for (const auto& c : cells) line += " " + c + " |";
    return line + "\n";
}

// Each line escaped, after `lead`: "\n" makes it a paragraph of its own,
// "- " a list item.
void append_lines(std::string& out, const std::vector<std::string>& lines, const char* lead) {
    for (const auto& line : lines) {
        out += lead;
        out += escape_cell(line);
        out += '\n';
    }
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
                out += table_row(latency_header()) + "|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
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
    for (const auto& line : latency_why_lines(model)) {
        out += "\n- why: ";
        out += escape_cell(line);
        out += '\n';
    }
    for (const auto& spike : worst_spikes(model)) {
        out += "\n```\n";
        for (const auto& line : spike_timeline_lines(spike)) out += line + "\n";
        out += "```\n";
    }
    return out;
}

// A load's table: a row per label, the columns that have a Markdown heading.
std::string markdown_load_table(const ReportModel& model, const LoadBlock& block) {
    std::string out = "### " + escape_cell(block.load) + "\n\n";
    std::vector<std::string> head;
    for (const auto& column : cell_columns())
        if (!column.markdown_heading.empty()) head.emplace_back(column.markdown_heading);
    out += table_row(head);
    // The label, and the p-value with its mark, read left to right.
    std::string align = "|";
    for (std::size_t i = 0; i < head.size(); ++i)
        align += i == 0 || i + 1 == head.size() ? ":--|" : "--:|";
    out += align + "\n";
    const CellDigits digits = {time_decimals(model), loads_decimals(block)};
    for (const auto& cell : block.cells) {
        std::vector<std::string> cells;
        for (const auto& column : cell_columns())
            if (!column.markdown_heading.empty())
                cells.push_back(
                    escape_cell((column.markdown ? column.markdown : column.text)(cell, digits)));
        out += table_row(cells);
    }
    return out + "\n";
}

// Under the tables: each load's unit, what the columns mean, the notes and
// the significance legend.
std::string markdown_explanations(const ReportModel& model) {
    std::string out = "Loads are counted while the workload runs, in:\n\n";
    for (const auto& block : model.blocks)
        out += "- " + escape_cell(block.load) + ": " + unit_description(block) + "\n";
    // Appended piece by piece: GCC 12 -O3 warns on "literal" + a temporary.
    out +=
        "\nTime is the mean wall time in seconds of the successful runs; ± is the half-width of "
        "its 95% confidence interval (Student t); Ratio is Time over the same kernel's no_load "
        "Time; Change and p-adj (";
    out += methods_used(model, "Time", kDefaultTimeTest);
    out += ", adjusted: ";
    out += correction_summary(model);
    out += ") compare with the baseline.\n";
    append_lines(out, model.notes, "\n");
    if (const auto legend = significance_legend(model); !legend.empty())
        append_lines(out, {legend}, "\n");
    if (const auto outside =
            outside_markdown(model, outside_rows(model, "", true), model.labels.size() > 1);
        !outside.empty())
        out += "\n" + outside;
    return out;
}

// A --perf or --psi table: a row per load and label, then its notes.
std::string markdown_observe_table(const ObserveTable& table) {
    std::string out = "\n### ";
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
    append_lines(out, table.notes, "- ");
    return out;
}

}  // namespace

std::string format_markdown(const ReportModel& model, const ReportOptions& options) {
    if (options.latency_only) return model.has_latency() ? latency_tables(model) : "";
    std::string out;
    for (const auto& block : model.blocks) out += markdown_load_table(model, block);
    out += markdown_explanations(model);
    // --perf, --psi
    for (const auto& table : observe_tables(model, options)) out += markdown_observe_table(table);
    if (model.has_latency()) {
        out += '\n';
        out += latency_tables(model);
    }
    return out;
}

}  // namespace contest
