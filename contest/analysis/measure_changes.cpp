// What else changed between two kernels under a load: each measure the runs
// recorded (measures.h says which, and how each is taken), tested between
// the labels as Time is and corrected over the load's measures.
#include "contest/analysis/measure_changes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "contest/analysis/measures.h"
#include "contest/analysis/min_runs.h"
#include "contest/analysis/ratio.h"

namespace contest {

namespace {

// From the table of measures; "" for one it does not know.
std::string meaning_of(const std::string& measure) {
    const Measure* m = find_measure(measure);
    return m ? std::string(m->meaning) : std::string();
}

// One label's values of every measure under a load, by the round they ran in.
std::map<std::string, std::vector<RoundValue>> values_of(const Cell& cell) {
    std::map<std::string, std::vector<RoundValue>> out;
    for (const auto& sr : cell.runs)
        if (sr.run.ok())
            for (const auto& [name, value] : run_measures(sr.run))
                out[name].push_back({sr.vary_group, sr.round, value});
    return out;
}

std::vector<double> plain(const std::vector<RoundValue>& v) {
    std::vector<double> out;
    for (const auto& x : v) out.push_back(x.value);
    return out;
}

double relative_change_pct(double base, double fresh) {
    if (base == 0) return fresh == 0 ? std::nan("") : std::copysign(INFINITY, fresh);
    return (fresh / base - 1) * 100;
}

// Time's machinery on one measure: paired by round where the labels share
// rounds of one --vary run, Welch otherwise. The values are not logs (a count
// may be zero), so the paired t is on plain differences.
std::optional<Test> test_measure(const std::string& name, const std::vector<RoundValue>& base,
                                 const std::vector<RoundValue>& fresh, double base_mean,
                                 double new_mean) {
    const auto a = plain(fresh), b = plain(base);
    if (a.size() < kMinRunsForSignificance || b.size() < kMinRunsForSignificance)
        return std::nullopt;
    Test t;
    if (auto paired = paired_between_labels(fresh, base, name)) {
        t = *paired;
        t.method = "paired t by round";
    } else {
        const auto w = stats::welch_t_test(a, b);
        if (!w) return std::nullopt;
        t.what = name;
        t.method = "Welch t";
        t.statistic = w->t;
        t.df = w->df;
        t.p = w->p;
    }
    t.effect_pct = relative_change_pct(base_mean, new_mean);
    return t;
}

// How far apart the means are, for the ranking: up by 2x and down by half
// weigh the same; from or to zero weighs most.
double distance(const MeasureChange& c) {
    if (c.base_mean == 0 || c.new_mean == 0 || c.new_mean / c.base_mean <= 0)
        return std::numeric_limits<double>::infinity();
    return std::fabs(std::log(c.new_mean / c.base_mean));
}

LoadMeasureChanges changes_under(const ReportModel& model, const Cell& base, const Cell& fresh) {
    LoadMeasureChanges out;
    out.load = base.load;
    const auto b = values_of(base), f = values_of(fresh);
    std::vector<MeasureChange> tested;
    for (const auto& [name, values] : b)
        if (!f.count(name)) out.only_base.push_back(name);
    for (const auto& [name, values] : f) {
        const auto other = b.find(name);
        if (other == b.end()) {
            out.only_new.push_back(name);
            continue;
        }
        const double base_mean = stats::summarize(plain(other->second)).mean;
        const double new_mean = stats::summarize(plain(values)).mean;
        auto t = test_measure(name, other->second, values, base_mean, new_mean);
        if (!t) continue;
        tested.push_back({name, meaning_of(name), base_mean, new_mean, *t});
    }
    std::vector<double> p;
    for (const auto& c : tested) p.push_back(c.test.p);
    const auto adjusted = stats::adjust_p_values(p, model.correction);
    for (std::size_t i = 0; i < tested.size(); ++i) {
        Test& t = tested[i].test;
        t.p_adjusted = adjusted[i];
        if (std::isfinite(t.p)) ++out.tested;
        if (std::find(out.methods.begin(), out.methods.end(), t.method) == out.methods.end())
            out.methods.push_back(t.method);
        t.significant = t.p_adjusted < model.alpha && !std::isnan(t.effect_pct) &&
                        std::fabs(t.effect_pct) >= model.min_effect_pct;
        if (t.significant) out.changed.push_back(tested[i]);
    }
    std::stable_sort(
        out.changed.begin(), out.changed.end(),
        [](const MeasureChange& x, const MeasureChange& y) { return distance(x) > distance(y); });
    return out;
}

}  // namespace

std::vector<LoadMeasureChanges> measure_changes(const ReportModel& model, const std::string& base,
                                                const std::string& fresh) {
    std::vector<LoadMeasureChanges> out;
    for (const auto& block : model.blocks) {
        const Cell* b = model.find_cell(block.load, base);
        const Cell* f = model.find_cell(block.load, fresh);
        if (!b || !f || b->time.n < kMinRunsForSignificance || f->time.n < kMinRunsForSignificance)
            continue;
        out.push_back(changes_under(model, *b, *f));
    }
    return out;
}

}  // namespace contest
