#include "contest/report/cell_columns.h"

#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"

namespace contest {

namespace {

std::string label(const Cell& c, const CellDigits&) {
    return c.label;
}

std::string runs(const Cell& c, const CellDigits&) {
    return c.runs_text();
}

// Every run of the cell stopped by --timeout: ">S", S the shortest time one
// ran before it was stopped (whole seconds, down).
std::string time_or_timeout(const Cell& c, const CellDigits& d) {
    if (c.time.n > 0 || c.timed_out == 0) return fixed(c.time.mean, d.time);
    double shortest = 0;
    for (const auto& sr : c.runs)
        if (sr.run.timed_out() && (shortest == 0 || sr.run.wall_s < shortest))
            shortest = sr.run.wall_s;
    std::string text = ">";
    text += std::to_string(static_cast<long>(shortest));
    return text;
}

std::string time_mean(const Cell& c, const CellDigits& d) {
    return fixed(c.time.mean, d.time);
}

std::string time_ci(const Cell& c, const CellDigits& d) {
    return fixed(c.time.ci95_half, d.time);
}

std::string cpu(const Cell& c, const CellDigits&) {
    return fixed(c.cpu_pct.mean, 1);
}

std::string loads(const Cell& c, const CellDigits& d) {
    return c.loads_counted ? fixed(c.load_units.mean, d.loads) : "-";
}

std::string load_cpu(const Cell& c, const CellDigits&) {
    return fixed(c.load_cpu_pct.mean, 1);
}

std::string ratio(const Cell& c, const CellDigits&) {
    return c.ratio ? fixed(*c.ratio, 2) : "-";
}

std::string ratio_ci(const Cell& c, const CellDigits&) {
    return c.ratio_estimate ? fixed(c.ratio_estimate->ci95_half, 2) : "-";
}

std::string load_effect_p(const Cell& c, const CellDigits&) {
    const auto& e = c.ratio_estimate;
    return e && e->test ? format_p(e->test->p_adjusted) : "-";
}

std::string change(const Cell& c, const CellDigits&) {
    if (c.is_baseline) return "base";
    return c.versus ? signed_percent(time_change_pct(*c.versus)) : "-";
}

std::string change_markdown(const Cell& c, const CellDigits& d) {
    return c.is_baseline ? "baseline" : change(c, d);
}

std::string time_p(const Cell& c, const CellDigits&) {
    return c.versus && c.versus->time_test ? format_p(c.versus->time_test->p_adjusted) : "-";
}

// Markdown has no column of its own for the mark: it follows the p-value.
std::string time_p_and_mark(const Cell& c, const CellDigits& d) {
    const std::string mark = significance_mark(c);
    return mark.empty() ? time_p(c, d) : time_p(c, d) + " " + mark;
}

const CellColumn kColumns[] = {
    {"Kernel", "Kernel", false, label},
    {"[runs]", "Runs", false, runs},
    {"Time", "Time (s)", false, time_or_timeout, time_mean},
    {"±CI", "± 95% CI", true, time_ci},
    {"CPU%", "CPU%", false, cpu},
    {"Loads", "Loads", false, loads},
    {"LCPU%", "LCPU%", false, load_cpu},
    {"Ratio", "Ratio", false, ratio},
    {"±R", "", true, ratio_ci},
    {"pR", "", true, load_effect_p},
    {"Change", "Change", true, change, change_markdown},
    {"p-adj", "p-adj", true, time_p, time_p_and_mark},
};

}  // namespace

std::span<const CellColumn> cell_columns() {
    return kColumns;
}

}  // namespace contest
