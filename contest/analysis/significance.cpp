// Which differences the report calls differences: every test behind the
// marks, the notes and the verdict is one family, corrected together
// (--correction), and a difference below --min-effect is never called one.
#include "contest/analysis/significance.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "contest/analysis/multiple_comparisons.h"

namespace contest {

namespace {

std::vector<Test*> family_of(ReportModel& model) {
    std::vector<Test*> family;
    for (auto& block : model.blocks)
        for (auto& cell : block.cells) {
            if (cell.ratio_estimate && cell.ratio_estimate->test)
                family.push_back(&*cell.ratio_estimate->test);
            if (!cell.versus) continue;
            if (cell.versus->time_test) family.push_back(&*cell.versus->time_test);
            if (cell.versus->ratio_test) family.push_back(&*cell.versus->ratio_test);
        }
    for (auto& block : model.blocks)
        for (auto& row : block.latency)
            for (auto* t : {&row.p99_test, &row.missed_test})
                if (*t) family.push_back(&**t);
    return family;
}

// The level the minimum detectable effect is stated at: the correction's most
// stringent step, alpha / m for both Holm (the smallest p is held to it) and
// Benjamini-Hochberg (a lone finding is); a test at a later step is held to
// a looser level, so the effect stated is what every test of the family can
// see, at worst.
double detection_level(const ReportModel& model) {
    if (model.correction == stats::Correction::none || model.family_size < 2) return model.alpha;
    return model.alpha / static_cast<double>(model.family_size);
}

}  // namespace

void judge_significance(ReportModel& model) {
    std::vector<Test*> family = family_of(model);
    std::vector<double> p;
    for (const Test* t : family) p.push_back(t->p);
    const auto adjusted = stats::adjust_p_values(p, model.correction);
    model.family_size = 0;
    for (std::size_t i = 0; i < family.size(); ++i) {
        Test& t = *family[i];
        t.p_adjusted = adjusted[i];
        if (std::isfinite(t.p)) ++model.family_size;
        t.significant = t.p_adjusted < model.alpha && std::isfinite(t.effect_pct) &&
                        std::fabs(t.effect_pct) >= model.min_effect_pct;
    }
    const double level = detection_level(model);
    model.detection_level = level;
    for (Test* t : family) {
        if (!t->resolution || !std::isfinite(t->p)) continue;
        t->mde_level = level;
        // A smaller difference is never called one, whatever its p.
        t->mde_pct = std::max(detectable_effect_pct(*t->resolution, level), model.min_effect_pct);
    }
    for (auto& block : model.blocks)
        for (auto& cell : block.cells)
            if (cell.versus) {
                auto& v = *cell.versus;
                v.significant = v.time_test && v.time_test->significant;
                v.ratio_significant = v.ratio_test && v.ratio_test->significant;
            }
}

}  // namespace contest
