#include "contest/analysis/ratio.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "contest/analysis/stats.h"

namespace contest {

namespace {

Test load_effect_test(const std::string& method, double statistic, double df, double p,
                      double ratio) {
    Test t;
    t.what = "load effect";
    t.method = method;
    t.statistic = statistic;
    t.df = df;
    t.p = p;
    t.effect_pct = (ratio - 1) * 100;
    return t;
}

// The finished no_load runs taken in rounds: their time by (file, round).
std::map<std::pair<std::string, int>, double> finished_by_round(
    std::span<const RoundTime> no_load) {
    std::map<std::pair<std::string, int>, double> by_round;
    for (const auto& r : no_load)
        if (r.round > 0 && !r.timed_out && r.wall_s > 0) by_round[{r.file, r.round}] = r.wall_s;
    return by_round;
}

// One run a round: where a round holds two runs of one cell (a --resume
// that ran it again, a file with a round taken twice), the last recorded is
// the one paired, in the raw tests and in the net ones alike
// (outside_tests.cpp's by_round).
std::vector<RoundTime> last_per_round(std::span<const RoundTime> runs) {
    std::map<std::pair<std::string, int>, std::size_t> last;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].round > 0) last[{runs[i].file, runs[i].round}] = i;
    std::vector<RoundTime> out;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].round > 0 && last[{runs[i].file, runs[i].round}] == i) out.push_back(runs[i]);
    return out;
}

}  // namespace

std::optional<RatioEstimate> paired_ratio(std::span<const RoundTime> load,
                                          std::span<const RoundTime> no_load) {
    const auto no_load_by_round = finished_by_round(no_load);
    RatioEstimate e;
    e.paired = true;
    std::vector<double> ranked;  // finite log-ratios and +inf for timed-out load runs
    for (const auto& r : last_per_round(load)) {
        auto it = no_load_by_round.find({r.file, r.round});
        if (r.round <= 0 || it == no_load_by_round.end()) continue;
        if (r.timed_out) {
            ++e.censored_pairs;
            ranked.push_back(std::numeric_limits<double>::infinity());
        } else if (r.wall_s > 0) {
            // log(a) - log(b): no overflow for any pair of finite times.
            e.log_ratios.push_back(std::log(r.wall_s) - std::log(it->second));
            e.log_ratio_groups.push_back(r.group);
            e.log_ratio_rounds.push_back(r.round);
            ranked.push_back(e.log_ratios.back());
        }
    }
    e.pairs = e.log_ratios.size();
    if (e.pairs < kMinPairs) return std::nullopt;
    const auto s = stats::summarize(e.log_ratios);
    e.ratio = std::exp(s.mean);
    e.ci95_low = std::exp(s.mean - s.ci95_half);
    e.ci95_high = std::exp(s.mean + s.ci95_half);
    e.ci95_half = (e.ci95_high - e.ci95_low) / 2;
    if (auto t = stats::one_sample_t_test(e.log_ratios))
        e.test = load_effect_test("paired t on log-ratios", t->t, t->df, t->p, e.ratio);
    if (ranked.size() >= kMinPairsForSignedRank)
        if (auto w = stats::wilcoxon_signed_rank(ranked)) {
            e.signed_rank =
                load_effect_test("Wilcoxon signed-rank", w->v, std::nan(""), w->p, e.ratio);
            // A timed-out run has no time for the t-test; the rank test
            // counts it as slower than every finished run.
            if (e.censored_pairs) e.test = e.signed_rank;
        }
    return e;
}

std::optional<Test> paired_between_labels(std::span<const RoundValue> a,
                                          std::span<const RoundValue> b, const std::string& what) {
    // The last value of a round on either side (last_per_round).
    const auto by_round = [](std::span<const RoundValue> values) {
        std::map<std::pair<std::string, int>, double> out;
        for (const auto& v : values)
            if (!v.group.empty() && v.round > 0) out[{v.group, v.round}] = v.value;
        return out;
    };
    const auto b_by_round = by_round(b);
    std::vector<double> differences;
    for (const auto& [key, value] : by_round(a))
        if (auto it = b_by_round.find(key); it != b_by_round.end())
            differences.push_back(value - it->second);
    if (differences.size() < kMinPairs) return std::nullopt;
    const auto t = stats::one_sample_t_test(differences);
    if (!t) return std::nullopt;
    Test test;
    test.what = what;
    test.method = "paired t on per-round log differences (" + std::to_string(differences.size()) +
                  " shared rounds)";
    test.statistic = t->t;
    test.df = t->df;
    test.p = t->p;
    test.effect_pct = (std::exp(stats::summarize(differences).mean) - 1) * 100;
    test.resolution = Resolution{t->se, t->df, true};
    return test;
}

double detectable_effect_pct(const Resolution& r, double level) {
    if (r.se == 0) return 0;  // no spread: any difference is found
    const double shift = stats::detectable_shift_in_se(r.df, level, kDetectionPower) * r.se;
    if (std::isnan(shift)) return shift;
    // The log scale's upward reading: exp(d) - 1 is the larger of the two
    // directions, so "could see ±x%" holds both ways.
    return r.log_scale ? std::expm1(shift) * 100 : shift * r.pct_per_unit;
}

std::size_t shared_rounds(std::span<const RoundTime> load, std::span<const RoundTime> no_load) {
    const auto no_load_by_round = finished_by_round(no_load);
    std::size_t n = 0;
    for (const auto& r : last_per_round(load))
        n += r.round > 0 && !r.timed_out && r.wall_s > 0 &&
             no_load_by_round.count({r.file, r.round});
    return n;
}

std::optional<RatioEstimate> load_ratio(std::span<const RoundTime> load,
                                        std::span<const RoundTime> no_load) {
    if (auto paired = paired_ratio(load, no_load)) return paired;
    auto finished = [](std::span<const RoundTime> runs) {
        std::vector<double> times;
        for (const auto& r : runs)
            if (!r.timed_out) times.push_back(r.wall_s);
        return times;
    };
    auto e = unpaired_ratio(finished(load), finished(no_load));
    // Why not paired: the note says "no round holds both" or "too few".
    if (e) e->unpaired_rounds = shared_rounds(load, no_load);
    return e;
}

std::optional<RatioEstimate> unpaired_ratio(std::span<const double> load,
                                            std::span<const double> no_load) {
    const auto a = stats::summarize(load), b = stats::summarize(no_load);
    if (a.n == 0 || b.n == 0 || !(b.mean > 0)) return std::nullopt;
    RatioEstimate e;
    e.ratio = a.mean / b.mean;
    // First order (delta method): the relative half-widths of both means
    // added in quadrature. NaN when a side has one run.
    const double rel_a = a.ci95_half / a.mean, rel_b = b.ci95_half / b.mean;
    e.ci95_half = e.ratio * std::sqrt(rel_a * rel_a + rel_b * rel_b);
    e.ci95_low = e.ratio - e.ci95_half;
    e.ci95_high = e.ratio + e.ci95_half;
    if (auto w = stats::welch_t_test(load, no_load))
        e.test = load_effect_test("Welch t on times", w->t, w->df, w->p, e.ratio);
    return e;
}

}  // namespace contest
