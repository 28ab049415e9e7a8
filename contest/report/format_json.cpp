// JSON for programs: every statistic of every cell, the comparison with the
// baseline, the warnings, and the runs each figure was computed from.
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "contest/report/compare_view.h"
#include "contest/report/formats.h"
#include "contest/report/latency_tables.h"
#include "contest/report/observe_tables.h"
#include "contest/report/outside_text.h"
#include "contest/report/report_options.h"
#include "contest/sys/json_text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

using nlohmann::json;

json number(double v) {
    return json_number(v);
}

json optional_test(const std::optional<Test>& t) {
    return t ? test_json(*t) : json(nullptr);
}

json optional_fit(const std::optional<OutsideFit>& f) {
    return f ? outside_fit_json(*f) : json(nullptr);
}

json ratio_json(const Cell& cell) {
    const auto& e = cell.ratio_estimate;
    if (!e) return nullptr;
    return {
        {"method", e->paired ? "paired by round" : "unpaired"},
        {"pairs", e->pairs},
        {"censored_pairs", e->censored_pairs},
        {"ci95_low", number(e->ci95_low)},
        {"ci95_high", number(e->ci95_high)},
        {"load_effect", optional_test(e->test)},
        {"signed_rank", optional_test(e->signed_rank)},
        {"load_effect_other", optional_test(e->test_other)},
        {"outside", optional_fit(e->outside)},
    };
}

json summary_json(const stats::Summary& s) {
    return {
        {"n", s.n},
        {"mean", number(s.mean)},
        {"median", number(s.median)},
        {"sd", number(s.sd)},
        {"min", number(s.min)},
        {"max", number(s.max)},
        {"cv", number(s.cv)},
        {"ci95_half", number(s.ci95_half)},
        {"ci95_low", number(s.mean - s.ci95_half)},
        {"ci95_high", number(s.mean + s.ci95_half)},
    };
}

json versus_json(const VersusBaseline& v) {
    json j = {
        {"change_pct", number(v.change_pct)},
        {"time_ratio", number(v.time_ratio)},
        {"judged", v.judged},
        {"significant", v.significant},
        {"ratio_significant", v.ratio_significant},
        {"failed_runs", v.failures},
        {"time_test", optional_test(v.time_test)},
        {"ratio_test", optional_test(v.ratio_test)},
        {"time_other", optional_test(v.time_other)},
        {"ratio_other", optional_test(v.ratio_other)},
        {"time_outside", optional_fit(v.time_outside)},
        {"ratio_outside", optional_fit(v.ratio_outside)},
        {"welch", nullptr},
        {"mann_whitney", nullptr},
    };
    if (v.welch)
        j["welch"] = {
            {"t", number(v.welch->t)}, {"df", number(v.welch->df)}, {"p", number(v.welch->p)}};
    if (v.mann_whitney)
        j["mann_whitney"] = {{"u", number(v.mann_whitney->u)},
                             {"z", number(v.mann_whitney->z)},
                             {"p", number(v.mann_whitney->p)}};
    return j;
}

json cell_json(const Cell& cell) {
    json runs = json::array();
    for (const auto& sr : cell.runs) {
        json r = to_json(sr.run);
        r["file"] = sr.file;
        runs.push_back(std::move(r));
    }
    return {
        {"label", cell.label},
        {"baseline", cell.is_baseline},
        {"runs_ok", cell.time.n},
        {"runs_failed", cell.failed},
        {"runs_timed_out", cell.timed_out},
        {"time_s", summary_json(cell.time)},
        {"cpu_pct", summary_json(cell.cpu_pct)},
        {"loads", cell.loads_counted ? summary_json(cell.load_units) : json(nullptr)},
        {"lcpu_pct", summary_json(cell.load_cpu_pct)},
        {"ratio", cell.ratio ? number(*cell.ratio) : json(nullptr)},
        {"ratio_ci95_half", cell.ratio ? number(cell.ratio_ci95_half) : json(nullptr)},
        {"ratio_estimate", ratio_json(cell)},
        {"versus_baseline", cell.versus ? versus_json(*cell.versus) : json(nullptr)},
        {"outside_spread", optional_fit(cell.outside_spread)},
        {"runs", std::move(runs)},
    };
}

}  // namespace

std::string format_json(const ReportModel& model, const ReportOptions& options) {
    json labels = json::array();
    for (const auto& l : model.labels)
        labels.push_back(
            {{"label", l.label}, {"files", l.files}, {"system", l.system}, {"config", l.config}});
    json loads = json::array();
    for (const auto& block : model.blocks) {
        json cells = json::array();
        for (const auto& cell : block.cells) cells.push_back(cell_json(cell));
        json latency = json::array();
        for (const auto& row : block.latency) latency.push_back(latency_json(row));
        json entry = {{"load", block.load}, {"unit", block.unit}};
        if (!options.latency_only) entry["rows"] = std::move(cells);
        if (!block.latency.empty()) entry["latency"] = std::move(latency);
        if (!options.latency_only || !block.latency.empty()) loads.push_back(std::move(entry));
    }
    // Ordered, so a reader sees what it is reading first.
    nlohmann::ordered_json report;
    report["schema_version"] = kReportSchemaVersion;
    report["contest_version"] = kVersion;
    report["baseline"] = model.baseline;
    report["alpha"] = model.alpha;
    report["confidence"] = 0.95;
    report["correction"] = stats::correction_name(model.correction);
    report["tests_in_family"] = model.family_size;
    report["min_effect_pct"] = model.min_effect_pct;
    // Each test's mde_pct: the smallest true change it finds with this power at this level.
    report["mde_power"] = kDetectionPower;
    report["mde_level"] = json_number(model.detection_level);
    report["verdict_basis"] = verdict_basis(model);
    report["significance_test"] =
        "Time: " + methods_used(model, "Time", "none") +
        "; Ratio against no_load: " + methods_used(model, "load effect", "none") +
        "; Ratio between labels: " + methods_used(model, "Ratio", "none") +
        "; two-sided, adjusted over the family";
    report["labels"] = std::move(labels);
    report["loads"] = std::move(loads);
    report["notes"] = model.notes;
    if (!model.level_noise.empty()) report["level_noise"] = level_noise_json(model.level_noise);
    if (!model.shared_noise.empty()) report["shared_noise"] = shared_noise_json(model.shared_noise);
    report["warnings"] = model.warnings;
    // --perf, --psi: {"perf": {"title", "rows": [{"load", "label", column: value}], "notes"}}
    for (const auto& table : observe_tables(model, options)) {
        json rows = json::array();
        for (const auto& r : table.rows) {
            json row = {{"load", r.load}, {"label", r.label}};
            for (std::size_t c = 0; c < r.cells.size(); ++c)
                row[table.columns[c]] =
                    r.cells[c].is_number() ? json_number(r.cells[c].get<double>()) : r.cells[c];
            rows.push_back(std::move(row));
        }
        report[table.name] = {{"title", table.title}, {"rows", rows}, {"notes", table.notes}};
    }
    return json_text(report) + "\n";
}

}  // namespace contest
