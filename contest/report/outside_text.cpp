#include "contest/report/outside_text.h"

#include <cmath>

#include "contest/analysis/stats.h"
#include "contest/report/compare_view.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

const Test* or_null(const std::optional<Test>& t) {
    return t ? &*t : nullptr;
}

}  // namespace

std::vector<OutsideRow> outside_rows(const ReportModel& model, const std::string& label,
                                     bool load_effects) {
    std::vector<OutsideRow> rows;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (!label.empty() && cell.label != label && !(load_effects && cell.is_baseline))
                continue;
            if (cell.versus) {
                const auto& v = *cell.versus;
                if (v.time_outside)
                    rows.push_back({block.load, cell.label, "Time", or_null(v.time_test),
                                    or_null(v.time_other), &*v.time_outside});
                if (v.ratio_outside)
                    rows.push_back({block.load, cell.label, "Ratio", or_null(v.ratio_test),
                                    or_null(v.ratio_other), &*v.ratio_outside});
            }
            // Each load's Ratio to its no_load only where the adjustment
            // applies (a table of every load's "not adjusted" says little),
            // but under --adjust outside, where it was asked for, every one.
            if (load_effects && cell.ratio_estimate && cell.ratio_estimate->outside &&
                (cell.ratio_estimate->outside->applied || model.adjust_outside))
                rows.push_back(
                    {block.load, cell.label, "Ratio to no_load", or_null(cell.ratio_estimate->test),
                     or_null(cell.ratio_estimate->test_other), &*cell.ratio_estimate->outside});
        }
    return rows;
}

std::string outside_heading(const ReportModel& model) {
    // /proc/stat cannot tell the kernel's work for the workload from its
    // work for anything else: said where the figures are.
    const std::string what =
        "what other processes, the kernel's irq, softirq and kernel-thread time (the "
        "workload's share of it too), hypervisor steal and the machine's speed took, taken "
        "out; docs/noise.md";
    return model.adjust_outside
               ? "Raw, beside the verdict of record net of outside work (" + what +
                     "; --adjust outside); where it is not adjusted, the row says why and the "
                     "raw test is the verdict:"
               : "Net of outside work (" + what +
                     "), beside the raw verdict of record; --adjust outside makes it the "
                     "verdict:";
}

std::string net_ci_text(const OutsideFit& fit) {
    if (!std::isfinite(fit.se) || !std::isfinite(fit.df)) return "";
    const double half = stats::t_quantile(0.975, fit.df) * fit.se;
    return "[" + signed_percent(100 * (std::exp(fit.effect_log - half) - 1)) + ", " +
           signed_percent(100 * (std::exp(fit.effect_log + half) - 1)) + "]";
}

std::vector<std::string> outside_cells(const OutsideRow& row, const ReportModel& model) {
    if (!row.other || !row.fit->applied) {
        const std::string finding = !model.adjust_outside ? "not adjusted"
                                    : row.record && !row.record->withheld.empty()
                                        ? "not adjusted; not judged"
                                        : "not adjusted; the raw test is the verdict";
        return {row.load, row.label, row.what, "-", "-", finding, row.fit->why_not};
    }
    const Test& t = *row.other;
    return {row.load,
            row.label,
            row.what,
            signed_percent(t.effect_pct) + (t.net_of_outside ? " " + net_ci_text(*row.fit) : ""),
            "p-adj " + format_p(t.p_adjusted),
            test_finding(t, model),
            row.fit->description()};
}

namespace {

std::vector<std::vector<std::string>> table_of(const ReportModel& model,
                                               const std::vector<OutsideRow>& rows,
                                               bool with_label) {
    std::vector<std::vector<std::string>> out;
    for (const auto& r : rows) {
        auto cells = outside_cells(r, model);
        if (!with_label) cells.erase(cells.begin() + 1);
        out.push_back(std::move(cells));
    }
    return out;
}

}  // namespace

namespace {

// On a quiet machine every row says "explains none": the block is printed
// only where some adjustment applied, or under --adjust outside, where a
// refusal is why the verdict stands raw.
bool worth_printing(const ReportModel& model, const std::vector<OutsideRow>& rows) {
    for (const auto& r : rows)
        if (r.fit->applied || model.adjust_outside) return true;
    return false;
}

}  // namespace

std::string outside_text(const ReportModel& model, const std::vector<OutsideRow>& rows,
                         bool with_label) {
    if (!worth_printing(model, rows)) return "";
    std::string out = outside_heading(model) + "\n";
    for (const auto& line : align_columns(table_of(model, rows, with_label), {}))
        out += "  " + line + "\n";
    return out;
}

std::string outside_markdown(const ReportModel& model, const std::vector<OutsideRow>& rows,
                             bool with_label) {
    if (!worth_printing(model, rows)) return "";
    std::string out = outside_heading(model) + "\n\n| Load |" +
                      std::string(with_label ? " Label |" : "") +
                      " Test | Change [95% CI] | p-adj | Finding | Fit |\n|:--|" +
                      std::string(with_label ? ":--|" : "") + ":--|--:|--:|:--|:--|\n";
    for (auto cells : table_of(model, rows, with_label)) {
        cells.resize(with_label ? 7 : 6);
        out += "| " + join(cells, " | ") + " |\n";
    }
    return out;
}

void append_outside_csv(std::vector<std::string>& row, const VersusBaseline* v) {
    const Test* o = v && v->time_other ? &*v->time_other : nullptr;
    const OutsideFit* fit = v && v->time_outside ? &*v->time_outside : nullptr;
    row.push_back(o ? (o->net_of_outside ? "net of outside work" : "raw") : "");
    row.push_back(o ? six_digits(o->effect_pct) : "");
    row.push_back(o ? six_digits(o->p_adjusted) : "");
    row.push_back(o ? six_digits(o->mde_pct) : "");
    row.push_back(fit ? six_digits(fit->explained) : "");
    row.push_back(fit ? fit->why_not : "");
    row.push_back(v && v->ratio_outside ? v->ratio_outside->why_not : "");
}

nlohmann::json outside_fit_json(const OutsideFit& fit) {
    nlohmann::json j = {
        {"applied", fit.applied},
        {"why_not", fit.why_not.empty() ? nlohmann::json(nullptr) : nlohmann::json(fit.why_not)},
        {"paired", fit.paired},
        {"observations", fit.observations},
        {"uses_share", fit.uses_share},
        {"uses_speed", fit.uses_speed},
        {"share_slope", json_number(fit.share_slope)},
        {"share_slope_estimated", fit.share_slope_estimated},
        {"speed_slope", json_number(fit.speed_slope)},
        {"explained", json_number(fit.explained)},
        {"raw_sd_log", json_number(fit.raw_sd)},
        {"residual_sd_log", json_number(fit.residual_sd)},
    };
    if (fit.applied) {
        j["effect_pct"] = json_number(fit.effect_pct());
        const double half = stats::t_quantile(0.975, fit.df) * fit.se;
        j["ci95_low_pct"] = json_number(100 * (std::exp(fit.effect_log - half) - 1));
        j["ci95_high_pct"] = json_number(100 * (std::exp(fit.effect_log + half) - 1));
    }
    return j;
}

}  // namespace contest
