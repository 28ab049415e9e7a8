// JSON for programs: every statistic of every cell, the comparison with the
// baseline, the warnings, and the runs each figure was computed from.
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "contest/report/formats.h"

namespace contest {

namespace {

using nlohmann::json;

// Six significant digits (see six_digits); null where undefined.
json number(double v) {
    const std::string digits = six_digits(v);
    return digits.empty() ? json(nullptr) : json(std::strtod(digits.c_str(), nullptr));
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
        {"time_s", summary_json(cell.time)},
        {"cpu_pct", summary_json(cell.cpu_pct)},
        {"loads", summary_json(cell.load_units)},
        {"lcpu_pct", summary_json(cell.load_cpu_pct)},
        {"ratio", cell.ratio ? number(*cell.ratio) : json(nullptr)},
        {"ratio_ci95_half", cell.ratio ? number(cell.ratio_ci95_half) : json(nullptr)},
        {"versus_baseline", cell.versus ? versus_json(*cell.versus) : json(nullptr)},
        {"runs", std::move(runs)},
    };
}

}  // namespace

std::string format_json(const ReportModel& model, const ReportOptions&) {
    json labels = json::array();
    for (const auto& l : model.labels)
        labels.push_back(
            {{"label", l.label}, {"files", l.files}, {"system", l.system}, {"config", l.config}});
    json loads = json::array();
    for (const auto& block : model.blocks) {
        json cells = json::array();
        for (const auto& cell : block.cells) cells.push_back(cell_json(cell));
        loads.push_back({{"load", block.load}, {"unit", block.unit}, {"rows", std::move(cells)}});
    }
    const json report = {
        {"baseline", model.baseline},
        {"alpha", model.alpha},
        {"confidence", 0.95},
        {"significance_test", "Welch's t-test on wall time, two-sided"},
        {"labels", std::move(labels)},
        {"loads", std::move(loads)},
        {"warnings", model.warnings},
    };
    return report.dump(2) + "\n";
}

}  // namespace contest
