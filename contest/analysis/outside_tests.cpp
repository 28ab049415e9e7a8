#include "contest/analysis/outside_tests.h"

#include <map>
#include <utility>
#include <vector>

namespace contest {

namespace {

std::optional<OutsidePoint> point_of(const SourcedRun& sr) {
    if (!sr.run.ok() || !sr.run.others_cpu_pct || !(sr.capacity_pct > 0)) return std::nullopt;
    return OutsidePoint{sr.run.wall_s, *sr.run.others_cpu_pct + sr.run.steal_pct.value_or(0),
                        sr.run.unit_cpu_us};
}

// The capacity both sides ran with; 0 where they differ or one is unknown
// (the share of a bigger machine is another share).
double common_capacity(std::initializer_list<const Cell*> cells) {
    double capacity = 0;
    for (const Cell* c : cells)
        for (const auto& sr : c->runs) {
            if (!sr.run.ok()) continue;
            if (!(sr.capacity_pct > 0) || (capacity > 0 && sr.capacity_pct != capacity)) return 0;
            capacity = sr.capacity_pct;
        }
    return capacity;
}

// Whether every finished run has the outside work recorded: older files,
// or a /proc/stat that could not be read, leave nothing to adjust by.
bool outside_recorded(std::initializer_list<const Cell*> cells) {
    for (const Cell* c : cells)
        for (const auto& sr : c->runs)
            if (sr.run.ok() && !point_of(sr)) return false;
    return true;
}

using RoundKey = std::pair<std::string, int>;  // (--vary group or file, round)

// A cell's runs by round, where rounds pair: between labels within a --vary
// group (`SourcedRun::vary_group`), within a label within its file (`file`).
// A round that holds two runs of the cell pairs its last, as the raw tests
// do (ratio.cpp's last_per_round).
std::map<RoundKey, OutsidePoint> by_round(const Cell& c, std::string SourcedRun::*pairs_within) {
    std::map<RoundKey, OutsidePoint> out;
    for (const auto& sr : c.runs)
        if (auto p = point_of(sr); p && !(sr.*pairs_within).empty() && sr.round > 0)
            out.insert_or_assign(RoundKey{sr.*pairs_within, sr.round}, *p);
    return out;
}

std::map<RoundKey, OutsidePoint> by_group_round(const Cell& c) {
    return by_round(c, &SourcedRun::vary_group);
}

std::map<RoundKey, OutsidePoint> by_file_round(const Cell& c) {
    return by_round(c, &SourcedRun::file);
}

std::vector<OutsidePoint> points(const Cell& c) {
    std::vector<OutsidePoint> out;
    for (const auto& sr : c.runs)
        if (auto p = point_of(sr)) out.push_back(*p);
    return out;
}

OutsideFit not_adjusted(std::string why) {
    OutsideFit f;
    f.why_not = std::move(why);
    return f;
}

// The rounds `sides` all hold (each with its sign), as contrasts.
std::vector<RoundContrast> shared_contrasts(
    const std::vector<std::pair<int, std::map<RoundKey, OutsidePoint>>>& sides, double capacity) {
    std::vector<RoundContrast> out;
    for (const auto& [key, first] : sides.front().second) {
        std::vector<SignedPoint> round{{sides.front().first, first}};
        for (std::size_t i = 1; i < sides.size(); ++i) {
            const auto it = sides[i].second.find(key);
            if (it == sides[i].second.end()) break;
            round.push_back({sides[i].first, it->second});
        }
        if (round.size() != sides.size()) continue;
        if (auto c = round_contrast(round, capacity)) out.push_back(*c);
    }
    return out;
}

// Where the cells' runs leave nothing to adjust by: nullopt when the net
// test is only beside the raw (a quiet "nothing to say", in every row
// alike: older files, /proc/stat unreadable); under --adjust outside, why
// the raw test stays the verdict.
std::optional<OutsideFit> unadjustable(std::initializer_list<const Cell*> cells, bool adjust) {
    if (!adjust) return std::nullopt;
    if (!outside_recorded(cells))
        return not_adjusted(
            "a run has no record of the outside work (a file from before contest recorded it, "
            "or /proc/stat unreadable)");
    return not_adjusted("the runs had different numbers of CPUs (or one is not recorded)");
}

// Time of `cell` against `base`: paired where they share --vary rounds
// (as the raw test), else a term for the side. Nothing (or under --adjust
// outside, why not) where a run lacks the outside work.
std::optional<OutsideFit> time_fit(const Cell& cell, const Cell& base, const Test& raw,
                                   bool adjust) {
    if (cell.timed_out || base.timed_out)
        return not_adjusted("timed-out runs are ranked, not adjusted");
    const double capacity = common_capacity({&cell, &base});
    if (!outside_recorded({&cell, &base}) || capacity == 0)
        return unadjustable({&cell, &base}, adjust);
    if (raw.method.starts_with("paired"))
        return fit_paired(
            shared_contrasts({{1, by_group_round(cell)}, {-1, by_group_round(base)}}, capacity));
    return fit_unpaired(points(base), points(cell), capacity);
}

// Ratio against the baseline's, paired (as the raw test) only.
std::optional<OutsideFit> ratio_fit(const Cell& cell, const Cell& cell_no_load, const Cell& base,
                                    const Cell& base_no_load, const Test& raw, bool adjust) {
    if (!raw.method.starts_with("paired"))
        return not_adjusted("the Ratios are not paired by round");
    const double capacity = common_capacity({&cell, &cell_no_load, &base, &base_no_load});
    if (!outside_recorded({&cell, &cell_no_load, &base, &base_no_load}) || capacity == 0)
        return unadjustable({&cell, &cell_no_load, &base, &base_no_load}, adjust);
    return fit_paired(shared_contrasts({{1, by_group_round(cell)},
                                        {-1, by_group_round(cell_no_load)},
                                        {-1, by_group_round(base)},
                                        {1, by_group_round(base_no_load)}},
                                       capacity));
}

// A load's Ratio to its no_load: paired by file and round (as the raw test).
std::optional<OutsideFit> load_effect_fit(const Cell& load, const Cell& no_load,
                                          const RatioEstimate& e, bool adjust) {
    if (e.censored_pairs) return not_adjusted("timed-out runs are ranked, not adjusted");
    const double capacity = common_capacity({&load, &no_load});
    if (!outside_recorded({&load, &no_load}) || capacity == 0)
        return unadjustable({&load, &no_load}, adjust);
    if (e.paired)
        return fit_paired(
            shared_contrasts({{1, by_file_round(load)}, {-1, by_file_round(no_load)}}, capacity));
    return fit_unpaired(points(no_load), points(load), capacity);
}

// How much of a cell's Time spread the covariates explain: its runs' log
// times as one side.
std::optional<OutsideFit> spread_fit(const Cell& cell) {
    const double capacity = common_capacity({&cell});
    if (!outside_recorded({&cell}) || capacity == 0 || cell.time.n < kMinRoundsForAdjustment)
        return std::nullopt;
    return fit_spread(points(cell), capacity);
}

// The net test where `fit` applies; `record` and `other` swapped under
// --adjust outside. Where it does not because the sides differ in the
// outside work or the speed, under --adjust outside neither basis is a
// verdict: the raw test is moved by that difference (with no effect, 3 in 7
// such comparisons were called: tests/simulations/sim_outside_rounds.cpp)
// and the net one may take out what the compared thing did to it.
void settle_bases(std::optional<Test>& record, std::optional<Test>& other, const OutsideFit& fit,
                  bool adjust) {
    if (record && adjust && fit.sides_differ) record->withheld = fit.why_not;
    if (!record || !fit.applied) return;
    other = net_test(*record, fit);
    if (adjust) std::swap(record, other);
}

}  // namespace

Test net_test(const Test& raw, const OutsideFit& fit) {
    Test t;
    t.what = raw.what;
    t.method = raw.method + ", net of outside work";
    t.statistic = fit.t;
    t.df = fit.df;
    t.p = fit.p;
    t.effect_pct = fit.effect_pct();
    t.net_of_outside = true;
    // The load effect states no resolution (it is not a comparison of labels).
    if (raw.resolution) t.resolution = Resolution{fit.se, fit.df, true};
    return t;
}

void add_outside_adjustments(ReportModel& model) {
    for (auto& block : model.blocks)
        for (auto& cell : block.cells) {
            cell.outside_spread = spread_fit(cell);
            const Cell* no_load = model.find_cell("no_load", cell.label);
            if (cell.ratio_estimate && cell.ratio_estimate->test && no_load) {
                auto& e = *cell.ratio_estimate;
                e.outside = load_effect_fit(cell, *no_load, e, model.adjust_outside);
                if (e.outside) settle_bases(e.test, e.test_other, *e.outside, model.adjust_outside);
            }
            if (!cell.versus) continue;
            auto& v = *cell.versus;
            const Cell* base = model.find_cell(block.load, model.baseline);
            if (v.time_test) {
                v.time_outside = time_fit(cell, *base, *v.time_test, model.adjust_outside);
                if (v.time_outside)
                    settle_bases(v.time_test, v.time_other, *v.time_outside, model.adjust_outside);
            }
            const Cell* base_no_load = model.find_cell("no_load", model.baseline);
            if (v.ratio_test && no_load && base_no_load) {
                v.ratio_outside = ratio_fit(cell, *no_load, *base, *base_no_load, *v.ratio_test,
                                            model.adjust_outside);
                if (v.ratio_outside)
                    settle_bases(v.ratio_test, v.ratio_other, *v.ratio_outside,
                                 model.adjust_outside);
            }
        }
}

}  // namespace contest
