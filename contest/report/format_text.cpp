// The classic contest table, as it goes to a terminal or a mailing-list post.
#include <string>
#include <vector>

#include "contest/report/formats.h"

namespace contest {

namespace {

std::vector<std::string> header(bool with_stats) {
    if (with_stats)
        return {"Kernel", "[runs]", "Time", "±CI", "CPU%",   "Loads",
                "LCPU%",  "Ratio",  "±R",   "pR",  "Change", "p-adj"};
    return {"Kernel", "[runs]", "Time", "CPU%", "Loads", "LCPU%", "Ratio"};
}

// Every run of the cell stopped by --timeout: ">S", S the shortest time one
// ran before it was stopped (whole seconds, down).
std::string time_text(const Cell& cell, int time_digits) {
    if (cell.time.n > 0 || cell.timed_out == 0) return fixed(cell.time.mean, time_digits);
    double shortest = 0;
    for (const auto& sr : cell.runs)
        if (sr.run.status == RunStatus::timed_out && (shortest == 0 || sr.run.wall_s < shortest))
            shortest = sr.run.wall_s;
    return ">" + std::to_string(static_cast<long>(shortest));
}

std::vector<std::string> row(const Cell& cell, int time_digits, int loads_digits, bool with_stats) {
    std::vector<std::string> r = {cell.label, cell.runs_text(), time_text(cell, time_digits)};
    if (with_stats) r.push_back(fixed(cell.time.ci95_half, time_digits));
    r.push_back(fixed(cell.cpu_pct.mean, 1));
    r.push_back(fixed(cell.load_units.mean, loads_digits));
    r.push_back(fixed(cell.load_cpu_pct.mean, 1));
    r.push_back(cell.ratio ? fixed(*cell.ratio, 2) : "-");
    if (with_stats) {
        const auto& e = cell.ratio_estimate;
        r.push_back(e ? fixed(e->ci95_half, 2) : "-");
        r.push_back(e && e->test ? format_p(e->test->p_adjusted) : "-");
        if (cell.is_baseline) {
            r.push_back("base");
            r.push_back("-");
        } else if (cell.versus) {
            r.push_back(signed_percent(cell.versus->change_pct));
            const auto& t = cell.versus->time_test;
            r.push_back(t ? format_p(t->p_adjusted) : "-");
        } else {
            r.push_back("-");
            r.push_back("-");
        }
    }
    r.push_back(significance_mark(cell));
    return r;
}

}  // namespace

std::string format_text(const ReportModel& model, const ReportOptions& options) {
    // Widths are shared by every block so the columns line up down the page.
    std::vector<std::vector<std::string>> rows;
    for (const auto& block : model.blocks) {
        rows.push_back(header(options.stats));
        for (const auto& cell : block.cells)
            rows.push_back(row(cell, time_decimals(model), loads_decimals(block), options.stats));
    }
    std::vector<bool> right(header(options.stats).size() + 1, true);
    right.front() = false;  // Kernel
    right.back() = false;   // the mark
    const auto lines = align_columns(rows, right);

    std::string out;
    std::size_t next = 0;
    for (const auto& block : model.blocks) {
        out += block.load + ":\n";
        for (std::size_t i = 0; i <= block.cells.size(); ++i) out += lines[next++] + "\n";
    }

    std::vector<std::vector<std::string>> units;
    for (const auto& block : model.blocks)
        units.push_back({block.load + ":", unit_description(block)});
    out += "\nLoads are counted while the workload runs, in:\n";
    for (const auto& line : align_columns(units, {false, false})) out += "  " + line + "\n";

    for (const auto& note : model.notes) out += note + "\n";
    if (const auto legend = significance_legend(model); !legend.empty()) out += legend + "\n";
    if (options.stats) {
        out +=
            "±CI: 95% confidence interval of Time (Student t); ±R: of Ratio; pR: the load's "
            "effect on Time (Ratio = 1?), adjusted; Change: Time against the baseline " +
            model.baseline + "; p-adj: its test's p, adjusted (" + correction_summary(model) +
            ")\n\nTests:\n";
        for (const auto& line : align_columns(
                 test_rows(model), {false, false, false, false, true, true, true, true, false}))
            out += "  " + line + "\n";
    }
    return out;
}

}  // namespace contest
