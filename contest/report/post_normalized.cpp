#include "contest/report/post_normalized.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "contest/report/compare_view.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// A normalised cell: "1.00 [ -0.00]( 2.31)", its mark after it.
constexpr std::size_t kCellWidth = 22;
constexpr const char* kColumnTail = "[pct imp](CV)";
constexpr const char* kSeparator = " | ";

std::string cv_text(double cv_pct) {
    return "(" + right_aligned(std::isfinite(cv_pct) ? fixed(cv_pct, 2) : "-", 5) + ")";
}

// A percentage (missed%) is shown as it is, its change in points: a share
// of 0 normalises to nothing, and its test is on the points.
std::string baseline_cell(const MeasureRow& row) {
    return (row.kind.in_points ? fixed(row.base, 2) : "1.00") + " [ -0.00]" +
           cv_text(row.base_cv_pct) + "  ";
}

// The figure normalised by the row's change (change_of_record, so its test's
// where it has one) and that change as an improvement; the mark whatever
// the figure.
std::string cell(const MeasureRow& row) {
    const std::string mark = row.mark().empty() ? " " : row.mark();
    if (!std::isfinite(row.change_pct)) return "- " + mark;
    const double figure = row.kind.in_points ? row.fresh : 1 + row.change_pct / 100;
    const double imp = row.change_pct * (row.kind.lower_is_better ? -1 : 1);
    std::string sign = imp >= 0 ? "+" : "";
    return fixed(figure, 2) + " [" + right_aligned(sign + fixed(imp, 2), 6) + "]" +
           cv_text(row.fresh_cv_pct) + " " + mark;
}

// The rows of one test: one kind of figure (Time, Ratio, Loads) or one
// probe's percentiles or its missed periods.
struct Block {
    RowKind kind;
    std::string probe;
    std::vector<std::string> paths;                                     // the rows, in order
    std::map<std::string, std::string> cases;                           // path -> its case
    std::map<std::string, std::map<std::string, MeasureRow>> by_label;  // label -> path -> row
    std::vector<std::string> statistics, units;                         // each once, in order
};

void add_once(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string block_key(const MeasureRow& row) {
    if (row.probe.empty()) return row.kind.name;
    return row.probe + (row.kind.name == "missed_pct" ? ".missed" : "");
}

std::string case_of(const MeasureRow& row) {
    if (row.probe.empty() || row.kind.name == "missed_pct") return row.load;
    return row.load + " " + row.kind.name.substr(0, row.kind.name.find('_')) + ":";
}

struct Layout {
    std::vector<std::string> keys;
    std::map<std::string, Block> blocks;
    std::vector<std::string> others;  // the labels judged against the baseline
};

Layout layout_of(const ReportModel& model) {
    Layout out;
    for (const auto& l : model.labels) {
        if (l.label == model.baseline) continue;
        out.others.push_back(l.label);
        for (const auto& row : comparison_rows(model, model.baseline, l.label)) {
            const std::string key = block_key(row);
            auto [it, fresh_block] = out.blocks.try_emplace(key);
            Block& b = it->second;
            if (fresh_block) {
                b.kind = row.kind;
                b.probe = row.probe;
                // The workload's and the load's tests first, then the probes'.
                const auto at = row.probe.empty()
                                    ? std::find_if(out.keys.begin(), out.keys.end(),
                                                   [&](const std::string& k) {
                                                       return !out.blocks.at(k).probe.empty();
                                                   })
                                    : out.keys.end();
                out.keys.insert(at, key);
            }
            if (!b.cases.count(row.path())) {
                b.paths.push_back(row.path());
                b.cases[row.path()] = case_of(row);
            }
            add_once(b.statistics, row.kind.statistic);
            add_once(b.units, row.kind.units);
            b.by_label[l.label][row.path()] = row;
        }
    }
    return out;
}

std::size_t case_width(const Layout& layout) {
    std::size_t w = std::string("Case:").size();
    for (const auto& [key, b] : layout.blocks)
        for (const auto& [path, c] : b.cases) w = std::max(w, display_width(c));
    return w + 2;
}

std::size_t column_width(const std::string& label) {
    return std::max(kCellWidth, display_width(label) + std::string(kColumnTail).size() + 2);
}

// The labels beside the baseline, in groups that fit in `columns`.
std::vector<std::vector<std::string>> column_groups(const ReportModel& model, const Layout& layout,
                                                    std::size_t columns) {
    std::vector<std::vector<std::string>> groups;
    const std::size_t start = case_width(layout) + column_width(model.baseline);
    std::size_t used = start;
    for (const auto& label : layout.others) {
        const std::size_t more = std::string(kSeparator).size() + column_width(label);
        if (groups.empty() || (used + more > columns && !groups.back().empty())) {
            groups.emplace_back();
            used = start;
        }
        groups.back().push_back(label);
        used += more;
    }
    return groups;
}

std::string rule() {
    return std::string(74, '=') + "\n";
}

std::string units_line(const Block& b) {
    if (b.kind.in_points) return join(b.units, ", ") + " (as they are; [pct imp] in points)";
    return "Normalized " + join(b.units, ", ") + " (the baseline's = 1.00)";
}

// `label`'s row at `path`; null where the label has none (it did not run
// the probe, or not under that load).
const MeasureRow* row_at(const Block& b, const std::string& label, const std::string& path) {
    const auto rows = b.by_label.find(label);
    if (rows == b.by_label.end()) return nullptr;
    const auto it = rows->second.find(path);
    return it == rows->second.end() ? nullptr : &it->second;
}

// A row at `path` that holds the baseline's figures: the first judged
// label's that has one.
const MeasureRow* baseline_row(const Layout& layout, const Block& b, const std::string& path) {
    for (const auto& label : layout.others)
        if (const MeasureRow* row = row_at(b, label, path)) return row;
    return nullptr;
}

// Each label's percentiles under each load, as schbench prints them.
std::string schbench_lines(const ReportModel& model, const Layout& layout, const Block& b) {
    std::vector<std::string> labels = {model.baseline};
    labels.insert(labels.end(), layout.others.begin(), layout.others.end());
    std::vector<std::string> loads;
    for (const auto& path : b.paths) {
        const std::string load = path.substr(0, path.find('.'));
        if (std::find(loads.begin(), loads.end(), load) == loads.end()) loads.push_back(load);
    }
    std::string out = "In us, as schbench prints them:\n";
    for (const auto& load : loads)
        for (std::size_t i = 0; i < labels.size(); ++i) {
            std::vector<std::string> parts;
            for (const auto& path : b.paths) {
                if (path.substr(0, path.find('.')) != load) continue;
                // The baseline's figures ride on every label's rows, but a
                // label that did not run the probe has none: the first that did.
                const MeasureRow* row =
                    i == 0 ? baseline_row(layout, b, path) : row_at(b, labels[i], path);
                if (!row) continue;
                const double us = i == 0 ? row->base : row->fresh;
                parts.push_back(b.cases.at(path).substr(load.size() + 1) + " " +
                                fixed(us, us >= 100 ? 0 : 1));
            }
            if (!parts.empty()) out += load + " " + labels[i] + ": " + join(parts, " | ") + "\n";
        }
    return out;
}

std::string trimmed(std::string line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

// A column's header, its name ending over the figures (not over their mark).
std::string header(const std::string& label) {
    return right_aligned(label + kColumnTail, column_width(label) - 2) + "  ";
}

std::string one_block(const ReportModel& model, const Layout& layout, const Block& b,
                      const std::vector<std::string>& group) {
    const std::size_t cw = case_width(layout);
    std::string out = "\n" + rule();
    out += "Test          : " +
           (b.probe.empty() ? b.kind.title
                            : b.kind.title + (b.kind.name == "missed_pct" ? ", missed "
                                                                            "periods"
                                                                          : ", percentiles")) +
           "\n";
    out += "Units         : " + units_line(b) + "\n";
    out += std::string("Interpretation: ") +
           (b.kind.lower_is_better ? "Lower is better" : "Higher is better") + "\n";
    out += "Statistic     : " + join(b.statistics, "; ") + "\n" + rule();
    std::string head = left_aligned("Case:", cw) + header(model.baseline);
    for (const auto& label : group) head += std::string(kSeparator) + header(label);
    out += trimmed(head) + "\n";
    for (const auto& path : b.paths) {
        const MeasureRow* base_row = baseline_row(layout, b, path);
        std::string line =
            left_aligned(b.cases.at(path), cw) +
            right_aligned(base_row ? baseline_cell(*base_row) : "-", column_width(model.baseline));
        for (const auto& label : group) {
            const MeasureRow* row = row_at(b, label, path);
            line += std::string(kSeparator) +
                    right_aligned(row ? cell(*row) : "-", column_width(label));
        }
        out += trimmed(line) + "\n";
    }
    return out;
}

}  // namespace

bool normalized_fits(const ReportModel& model, std::size_t columns) {
    const Layout layout = layout_of(model);
    for (const auto& label : layout.others)
        if (case_width(layout) + column_width(model.baseline) + std::string(kSeparator).size() +
                column_width(label) >
            columns)
            return false;
    return true;
}

std::string normalized_blocks(const ReportModel& model, std::size_t columns) {
    const Layout layout = layout_of(model);
    if (layout.others.empty()) return "";
    std::string out;
    for (const auto& group : column_groups(model, layout, columns))
        for (const auto& key : layout.keys) {
            const Block& b = layout.blocks.at(key);
            out += one_block(model, layout, b, group);
            if (!b.probe.empty() && b.kind.name != "missed_pct" &&
                group == column_groups(model, layout, columns).front())
                out += schbench_lines(model, layout, b);
        }
    out += "\n" + row_marks_legend(model) + "\n";
    out +=
        "[pct imp]: the change against the baseline in % (in points for a percentage), + "
        "where it is better (a lower Time, a higher Loads): its test's where it has one (for "
        "Time paired by round, the per-round ratios' geometric mean), which the figure is "
        "normalised by; CV: the runs' standard deviation over their mean in %, - where one "
        "figure stands for every run (Ratio, the pooled percentiles but the 99th).\n";
    for (const auto& label : layout.others) {
        const CompareView view = compare_view(model, model.baseline, label);
        out += "\n" + view.fresh + " against " + view.base + ":\n";
        std::string could = rows_could_see(comparison_rows(model, model.baseline, label));
        if (!could.empty()) out += "  These runs could see: " + could + "\n";
        if (const std::string g = geometric_line(view); !g.empty()) out += "  " + g;
        out += "  Verdict: " + view.verdict + "\n";
    }
    return out;
}

}  // namespace contest
