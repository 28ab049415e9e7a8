// `contest compare`: two kernels side by side, load by load. One view of the
// comparison (what was found under each load, the geometric mean, the
// verdict) is worked out once and rendered in the format asked for.
#include "contest/report/format_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/report/compare_view.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/report/latency_tables.h"
#include "contest/report/measure_changes_text.h"
#include "contest/report/outside_text.h"
#include "contest/sys/json_text.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

CompareView view_of(const ReportModel& model) {
    return compare_view(model, model.labels.at(0).label, model.labels.at(1).label);
}

std::string changes_markdown(const CompareView& view, const ReportModel& model) {
    if (view.changes.empty()) return "";
    std::string out = "\n" + measure_changes_heading(view.changes, model) + "\n";
    for (const auto& c : view.changes) {
        out += "\n**" + c.load + ":** " + measure_changes_count(c) + "\n";
        if (!c.changed.empty()) {
            out += "\n| Measure | Base | New | Change | p-adj | Meaning |\n";
            out += "|:--|--:|--:|--:|--:|:--|\n";
            for (const auto& m : c.changed)
                out += "| " + m.measure + " | " + four_digits(m.base_mean) + " | " +
                       four_digits(m.new_mean) + " | " + signed_percent(m.test.effect_pct) + " | " +
                       format_p(m.test.p_adjusted) + " | " + measure_change_line(m) + " |\n";
        }
        if (!c.only_base.empty())
            out += "\nRecorded only on base: " + join(c.only_base, ", ") + "\n";
        if (!c.only_new.empty()) out += "\nRecorded only on new: " + join(c.only_new, ", ") + "\n";
    }
    return out;
}

nlohmann::ordered_json measure_change_json(const MeasureChange& m) {
    return {{"measure", m.measure},
            {"meaning", m.meaning.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.meaning)},
            {"base_mean", json_number(m.base_mean)},
            {"new_mean", json_number(m.new_mean)},
            {"change_pct", json_number(m.test.effect_pct)},
            {"method", m.test.method},
            {"p", json_number(m.test.p)},
            {"p_adjusted", json_number(m.test.p_adjusted)},
            {"reads", measure_change_line(m)}};
}

nlohmann::ordered_json changes_json(const CompareView& view) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& c : view.changes) {
        nlohmann::ordered_json changed = nlohmann::ordered_json::array();
        for (const auto& m : c.changed) changed.push_back(measure_change_json(m));
        out.push_back({{"load", c.load},
                       {"measures_tested", c.tested},
                       {"changed", changed},
                       {"only_base", c.only_base},
                       {"only_new", c.only_new}});
    }
    return out;
}

std::string as_text(const CompareView& view, const ReportModel& model) {
    std::string out = "base: " + view.base + "\nnew:  " + view.fresh +
                      "\nTime: mean wall seconds ± half-width of the 95% confidence interval; "
                      "p: " +
                      methods_used(model, "Time", kDefaultTimeTest) + ", adjusted (" +
                      correction_summary(model) +
                      "); Ratio: base -> new, tested on per-round log-ratios\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : view.loads) {
        if (!f.fresh || !f.fresh->versus) {
            rows.push_back({f.load, f.time_finding});
            continue;
        }
        const auto& v = *f.fresh->versus;
        std::vector<std::string> row = {
            f.load,         f.base->runs_text() + ": " + mean_and_ci(f.base->time),
            "vs",           f.fresh->runs_text() + ": " + mean_and_ci(f.fresh->time),
            change_text(v), p_text(v.time_test),
            f.time_finding, "Ratio " + ratio_pair(f)};
        row.push_back(v.ratio_test ? p_text(v.ratio_test) + " " + f.ratio_finding : "");
        if (v.mann_whitney) row.push_back("(Mann-Whitney p=" + format_p(v.mann_whitney->p) + ")");
        rows.push_back(std::move(row));
    }
    for (const auto& line :
         align_columns(rows, {false, true, false, true, true, false, false, false, false, false}))
        out += line + "\n";
    out += "\n" + geometric_line(view);
    if (const auto outside = outside_text(model, outside_rows(model, view.fresh, false), false);
        !outside.empty())
        out += "\n" + outside;
    if (const auto lat = latency_comparison_rows(model, view.base, view.fresh); lat.size() > 1) {
        out +=
            "\nLatency (pooled p99 in us, missed % of periods; base -> new; p: Welch on "
            "per-run figures, adjusted with the rest):\n";
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 1; i < lat.size(); ++i) {
            const auto& r = lat[i];
            rows.push_back({r[0], r[1], "p99 " + r[2] + " -> " + r[3], r[4], "p=" + r[5], r[6],
                            "missed " + r[7] + " -> " + r[8] + "%", "p=" + r[10], r[11]});
        }
        for (const auto& line :
             align_columns(rows, {false, false, false, true, false, false, false, false, false}))
            out += line + "\n";
    }
    out += measure_changes_text(view.changes, model);
    for (const auto& note : model.notes) out += note + "\n";
    return out + "verdict: " + view.verdict + "\n";
}

std::string as_markdown(const CompareView& view, const ReportModel& model) {
    std::string out = "**base:** " + view.base + "  \n**new:** " + view.fresh + "\n\n";
    out +=
        "| Load | Base runs | Base Time (s) | New runs | New Time (s) | Change | p-adj | Time | "
        "Ratio base | Ratio new | Ratio p-adj | Ratio |\n";
    out += "|:--|--:|--:|--:|--:|--:|--:|:--|--:|--:|--:|:--|\n";
    for (const auto& f : view.loads) {
        if (!f.fresh || !f.fresh->versus) {
            out += "| " + f.load + " | | | | | | | " + f.time_finding + " | | | | |\n";
            continue;
        }
        const auto& v = *f.fresh->versus;
        out += "| " + f.load + " | " + f.base->runs_text() + " | " + mean_and_ci(f.base->time) +
               " | " + f.fresh->runs_text() + " | " + mean_and_ci(f.fresh->time) + " | " +
               change_text(v) + " | " + (v.time_test ? format_p(v.time_test->p_adjusted) : "-") +
               " | " + f.time_finding + " | " + fixed(f.base->ratio.value_or(std::nan("")), 2) +
               " | " + fixed(f.fresh->ratio.value_or(std::nan("")), 2) + " | " +
               (v.ratio_test ? format_p(v.ratio_test->p_adjusted) : "-") + " | " + f.ratio_finding +
               " |\n";
    }
    out += "\n" + geometric_line(view);
    if (const auto outside = outside_markdown(model, outside_rows(model, view.fresh, false), false);
        !outside.empty())
        out += "\n" + outside;
    if (const auto lat = latency_comparison_rows(model, view.base, view.fresh); lat.size() > 1) {
        out +=
            "\n| Load | Probe | Base p99 (us) | New p99 (us) | Change | p-adj | p99 | Base missed% "
            "| New missed% | Change (points) | p-adj | Missed |\n";
        out += "|:--|:--|--:|--:|--:|--:|:--|--:|--:|--:|--:|:--|\n";
        for (std::size_t i = 1; i < lat.size(); ++i) out += "| " + join(lat[i], " | ") + " |\n";
    }
    out += changes_markdown(view, model);
    for (const auto& note : model.notes) out += "\n" + note + "\n";
    return out + "\n**verdict:** " + view.verdict + "\n";
}

std::string csv_field(const std::string& field) {
    if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
    std::string out = "\"";
    for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string as_csv(const CompareView& view, const ReportModel& model) {
    std::string out =
        "load,base_runs_ok,base_runs_failed,base_time_s,new_runs_ok,new_runs_failed,new_time_s,"
        "change_pct,time_test,time_p,time_p_adjusted,time_finding,base_ratio,new_ratio,"
        "ratio_change_pct,ratio_p,ratio_p_adjusted,ratio_finding,time_mde_pct,ratio_mde_pct," +
        join(kOutsideCsvColumns, ",") + "\n";
    for (const auto& f : view.loads) {
        std::vector<std::string> row = {f.load};
        const VersusBaseline* v = f.fresh && f.fresh->versus ? &*f.fresh->versus : nullptr;
        for (const Cell* c : {f.base, f.fresh}) {
            row.push_back(c ? std::to_string(c->time.n) : "");
            row.push_back(c ? std::to_string(c->failed) : "");
            row.push_back(c ? six_digits(c->time.mean) : "");
        }
        const Test* t = v && v->time_test ? &*v->time_test : nullptr;
        const Test* r = v && v->ratio_test ? &*v->ratio_test : nullptr;
        row.push_back(v ? six_digits(time_change_pct(*v)) : "");
        row.push_back(t ? t->method : "");
        row.push_back(t ? six_digits(t->p) : "");
        row.push_back(t ? six_digits(t->p_adjusted) : "");
        row.push_back(f.time_finding);
        row.push_back(f.base && f.base->ratio ? six_digits(*f.base->ratio) : "");
        row.push_back(f.fresh && f.fresh->ratio ? six_digits(*f.fresh->ratio) : "");
        row.push_back(r ? six_digits(r->effect_pct) : "");
        row.push_back(r ? six_digits(r->p) : "");
        row.push_back(r ? six_digits(r->p_adjusted) : "");
        row.push_back(f.ratio_finding);
        row.push_back(t ? six_digits(t->mde_pct) : "");
        row.push_back(r ? six_digits(r->mde_pct) : "");
        append_outside_csv(row, v);
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {  // appended: GCC 12 -O3 warns on "," + temp
            if (i) line += ',';
            line += csv_field(row[i]);
        }
        out += line + "\n";
    }
    // The latency comparison, a table of its own after an empty line.
    if (const auto lat = latency_comparison_rows(model, view.base, view.fresh); lat.size() > 1) {
        out += "\n";
        for (const auto& row : lat) out += join(row, ",", csv_field) + "\n";
    }
    return out;
}

nlohmann::ordered_json side_json(const Cell* c) {
    if (!c) return nullptr;
    nlohmann::ordered_json j;
    j["runs_ok"] = c->time.n;
    j["runs_failed"] = c->failed;
    j["runs_timed_out"] = c->timed_out;
    j["time_mean_s"] = json_number(c->time.mean);
    j["time_ci95_half"] = json_number(c->time.ci95_half);
    j["ratio"] = c->ratio ? json_number(*c->ratio) : nlohmann::json(nullptr);
    j["ratio_ci95_half"] = c->ratio ? json_number(c->ratio_ci95_half) : nlohmann::json(nullptr);
    j["ratio_method"] = !c->ratio_estimate          ? nlohmann::json(nullptr)
                        : c->ratio_estimate->paired ? "paired by round"
                                                    : "unpaired";
    nlohmann::json effect = nullptr;
    if (c->ratio_estimate && c->ratio_estimate->test) effect = test_json(*c->ratio_estimate->test);
    j["load_effect"] = effect;
    return j;
}

std::string as_json(const CompareView& view, const ReportModel& model) {
    nlohmann::ordered_json j;
    j["schema_version"] = kReportSchemaVersion;
    j["contest_version"] = kVersion;
    j["base"] = view.base;
    j["new"] = view.fresh;
    j["alpha"] = model.alpha;
    j["correction"] = stats::correction_name(model.correction);
    j["tests_in_family"] = model.family_size;
    j["min_effect_pct"] = model.min_effect_pct;
    j["mde_power"] = kDetectionPower;
    j["mde_level"] = json_number(model.detection_level);
    j["verdict_basis"] = verdict_basis(view.findings, model);
    j["verdict_raw_under"] = view.findings.raw_under;
    j["verdict_withheld"] = view.findings.withheld;
    nlohmann::ordered_json loads = nlohmann::ordered_json::array();
    for (const auto& f : view.loads) {
        nlohmann::ordered_json l;
        l["load"] = f.load;
        l["base"] = side_json(f.base);
        l["new"] = side_json(f.fresh);
        nlohmann::json tests = nlohmann::json::array();
        if (f.fresh && f.fresh->versus) {
            const auto& v = *f.fresh->versus;
            l["change_pct"] = json_number(time_change_pct(v));
            l["time_mde_pct"] = v.time_test ? json_number(v.time_test->mde_pct) : nullptr;
            if (v.time_test) tests.push_back(test_json(*v.time_test));
            if (v.ratio_test) tests.push_back(test_json(*v.ratio_test));
            if (v.time_other) tests.push_back(test_json(*v.time_other));
            if (v.ratio_other) tests.push_back(test_json(*v.ratio_other));
            l["time_other_mde_pct"] = v.time_other ? json_number(v.time_other->mde_pct) : nullptr;
            l["time_outside"] = v.time_outside ? outside_fit_json(*v.time_outside) : nullptr;
            l["ratio_outside"] = v.ratio_outside ? outside_fit_json(*v.ratio_outside) : nullptr;
            if (v.mann_whitney)
                tests.push_back({{"tests", "Time"},
                                 {"method", "Mann-Whitney U (not in the family)"},
                                 {"statistic", json_number(v.mann_whitney->u)},
                                 {"p", json_number(v.mann_whitney->p)}});
        }
        l["tests"] = tests;
        l["time_finding"] = f.time_finding;
        l["ratio_finding"] = f.ratio_finding;
        loads.push_back(l);
    }
    j["loads"] = loads;
    j["geometric_mean_time_ratio"] = {{"value", json_number(view.geometric_mean)},
                                      {"loads", view.geometric_count}};
    nlohmann::json latency = nlohmann::json::array();
    for (const auto& block : model.blocks)
        for (const auto& row : block.latency)
            if (row.label == view.fresh) {
                nlohmann::json entry = latency_json(row);
                entry.erase("histogram_bins");
                entry["load"] = block.load;
                latency.push_back(std::move(entry));
            }
    if (!latency.empty()) j["latency"] = latency;
    if (!view.changes.empty()) j["what_else_changed"] = changes_json(view);
    j["notes"] = model.notes;
    if (!model.level_noise.empty()) j["level_noise"] = level_noise_json(model.level_noise);
    if (!model.shared_noise.empty()) j["shared_noise"] = shared_noise_json(model.shared_noise);
    j["warnings"] = model.warnings;
    j["verdict"] = view.verdict;
    return json_text(j) + "\n";
}

}  // namespace

std::string compare_text(const ReportModel& model) {
    return as_text(view_of(model), model);
}

std::string compare_markdown(const ReportModel& model) {
    return as_markdown(view_of(model), model);
}

std::string compare_csv(const ReportModel& model) {
    return as_csv(view_of(model), model);
}

std::string compare_json(const ReportModel& model) {
    return as_json(view_of(model), model);
}

}  // namespace contest
