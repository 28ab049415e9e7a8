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

// A hypothesis of the family: its test of record, and the same hypothesis
// on the other basis (net of outside work, or raw under --adjust outside)
// where there is one.
struct Hypothesis {
    Test* record = nullptr;
    Test* other = nullptr;
};

Test* or_null(std::optional<Test>& t) {
    return t ? &*t : nullptr;
}

std::vector<Hypothesis> family_of(ReportModel& model) {
    std::vector<Hypothesis> family;
    for (auto& block : model.blocks)
        for (auto& cell : block.cells) {
            if (cell.ratio_estimate && cell.ratio_estimate->test)
                family.push_back(
                    {&*cell.ratio_estimate->test, or_null(cell.ratio_estimate->test_other)});
            if (!cell.versus) continue;
            auto& v = *cell.versus;
            if (v.time_test) family.push_back({&*v.time_test, or_null(v.time_other)});
            if (v.ratio_test) family.push_back({&*v.ratio_test, or_null(v.ratio_other)});
        }
    for (auto& block : model.blocks)
        for (auto& row : block.latency)
            for (auto* t : {&row.p99_test, &row.missed_test})
                if (*t) family.push_back({&**t, nullptr});
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

// Marks each test of `tests` (one per hypothesis, nullptr where there is
// none on this basis) with its p adjusted over `p` (the whole family's, on
// this basis where it has a test, else on the record's).
void judge(const std::vector<Test*>& tests, const std::vector<double>& p,
           const ReportModel& model) {
    const auto adjusted = stats::adjust_p_values(p, model.correction);
    for (std::size_t i = 0; i < tests.size(); ++i) {
        if (!tests[i]) continue;
        Test& t = *tests[i];
        t.p_adjusted = adjusted[i];
        t.significant = t.withheld.empty() && t.p_adjusted < model.alpha &&
                        std::isfinite(t.effect_pct) &&
                        std::fabs(t.effect_pct) >= model.min_effect_pct;
        if (!t.resolution || !std::isfinite(t.p)) continue;
        t.mde_level = model.detection_level;
        // A smaller difference is never called one, whatever its p.
        t.mde_pct = std::max(detectable_effect_pct(*t.resolution, model.detection_level),
                             model.min_effect_pct);
    }
}

}  // namespace

void judge_significance(ReportModel& model) {
    const std::vector<Hypothesis> family = family_of(model);
    model.family_size = 0;
    for (const auto& h : family)
        if (std::isfinite(h.record->p)) ++model.family_size;
    model.detection_level = detection_level(model);
    // The tests on the other basis test the same hypotheses: they are
    // corrected as one family of the same size, each in its hypothesis'
    // place, never added to the record's (that would count each twice).
    std::vector<Test*> record, other;
    std::vector<double> record_p, other_p;
    for (const auto& h : family) {
        record.push_back(h.record);
        record_p.push_back(h.record->p);
        other.push_back(h.other);
        other_p.push_back(h.other ? h.other->p : h.record->p);
    }
    judge(record, record_p, model);
    judge(other, other_p, model);
    for (auto& block : model.blocks)
        for (auto& cell : block.cells)
            if (cell.versus) {
                auto& v = *cell.versus;
                v.significant = v.time_test && v.time_test->significant;
                v.ratio_significant = v.ratio_test && v.ratio_test->significant;
            }
}

}  // namespace contest
