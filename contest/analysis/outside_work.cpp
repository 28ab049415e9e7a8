#include "contest/analysis/outside_work.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "contest/analysis/stats.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

// A covariate is said to differ between the sides when a test of it finds
// it at this level: then adjusting by it could take out what the compared
// thing itself did.
constexpr double kDiffersLevel = 0.05;
// A covariate is used where the time follows it beyond chance at this
// level: an F test of its slope, decided before the effect is tested.
constexpr double kExplainsLevel = 0.05;

// One observation: a round's contrast (paired) or a run (unpaired, `side`
// 0 or 1).
struct Observation {
    double y = 0;
    double side = 0;
    double log_left = 0;
    double outside_pct = 0;
    std::optional<double> log_unit;
};

struct Model {
    bool share = false, speed = false;
    bool share_fixed = false;  // the share's slope fixed at 1
};

struct Solved {
    bool ok = false;
    double effect = 0, se = 0, df = 0, s2 = 0, rss = 0;
    double residual_df = 0;  // of rss (df is the effect's: Welch's unpaired)
    double share_coef = 0, speed_coef = 0;
};

constexpr std::size_t kMaxColumns = 4;
using Row = std::array<double, kMaxColumns>;

struct LeastSquares {
    bool ok = false;
    Row beta{};
    std::array<Row, kMaxColumns> inverse{};  // (X'X)^-1
    std::vector<double> residuals;
    double rss = 0, df = 0;
};

// Least squares of y on the columns, by the normal equations (at most four
// columns of logs: well conditioned enough), with (X'X)^-1 by Gauss-Jordan
// for the effect's standard error.
LeastSquares least_squares(const std::vector<Row>& x, const std::vector<double>& y,
                           std::size_t columns) {
    LeastSquares out;
    const std::size_t n = y.size();
    if (n <= columns) return out;
    double a[kMaxColumns][2 * kMaxColumns] = {};
    Row xty{};
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t r = 0; r < columns; ++r) {
            xty[r] += x[i][r] * y[i];
            for (std::size_t c = 0; c < columns; ++c) a[r][c] += x[i][r] * x[i][c];
        }
    double scale = 1;
    for (std::size_t r = 0; r < columns; ++r) {
        a[r][columns + r] = 1;
        scale = std::max(scale, std::fabs(a[r][r]));
    }
    for (std::size_t c = 0; c < columns; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < columns; ++r)
            if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
        // A column that is (nearly) a combination of the others: that
        // covariate did not vary, and carries nothing.
        if (!(std::fabs(a[pivot][c]) > 1e-10 * scale)) return out;
        if (pivot != c)
            for (std::size_t k = 0; k < 2 * columns; ++k) std::swap(a[c][k], a[pivot][k]);
        const double d = a[c][c];
        for (std::size_t k = 0; k < 2 * columns; ++k) a[c][k] /= d;
        for (std::size_t r = 0; r < columns; ++r) {
            if (r == c) continue;
            const double f = a[r][c];
            for (std::size_t k = 0; k < 2 * columns; ++k) a[r][k] -= f * a[c][k];
        }
    }
    for (std::size_t r = 0; r < columns; ++r)
        for (std::size_t c = 0; c < columns; ++c) {
            out.inverse[r][c] = a[r][columns + c];
            out.beta[r] += out.inverse[r][c] * xty[c];
        }
    for (std::size_t i = 0; i < n; ++i) {
        double fit = 0;
        for (std::size_t c = 0; c < columns; ++c) fit += out.beta[c] * x[i][c];
        out.residuals.push_back(y[i] - fit);
        out.rss += out.residuals.back() * out.residuals.back();
    }
    out.df = static_cast<double>(n - columns);
    out.ok = std::isfinite(out.rss);
    return out;
}

// The side term's standard error and degrees of freedom in Welch's form, as
// the raw unpaired test has them: each side's residual variance of its own
// (not pooled), the term's variance sum_i c_i^2 s_side(i)^2 where c is the
// term's row of (X'X)^-1 X', and Welch-Satterthwaite's degrees of freedom.
// Each side's residual degrees of freedom are its runs less one, less its
// share of the slopes'; with no slope this is Welch's t exactly.
std::optional<std::pair<double, double>> welch_form(const std::vector<Row>& x,
                                                    const std::vector<Observation>& obs,
                                                    const LeastSquares& ls, std::size_t columns,
                                                    std::size_t effect_column) {
    const double n = static_cast<double>(obs.size());
    double rss[2] = {}, weight[2] = {}, runs[2] = {};
    for (std::size_t i = 0; i < obs.size(); ++i) {
        double c = 0;
        for (std::size_t k = 0; k < columns; ++k) c += ls.inverse[effect_column][k] * x[i][k];
        const int side = obs[i].side > 0 ? 1 : 0;
        rss[side] += ls.residuals[i] * ls.residuals[i];
        weight[side] += c * c;
        runs[side] += 1;
    }
    double variance = 0, denominator = 0;
    for (int side : {0, 1}) {
        const double df = (runs[side] - 1) * ls.df / (n - 2);
        if (!(df > 0)) return std::nullopt;
        const double part = weight[side] * rss[side] / df;
        variance += part;
        denominator += part * part / df;
    }
    if (!(variance > 0)) return std::pair{0.0, ls.df};
    return std::pair{std::sqrt(variance), variance * variance / denominator};
}

// The model's fit: the intercept is the effect when paired, the side's term
// otherwise; then the share's and the speed's columns, as the model uses them.
Solved solve(const std::vector<Observation>& obs, bool paired, const Model& m) {
    std::vector<Row> x;
    std::vector<double> y;
    std::size_t columns = 0, share_column = 0, speed_column = 0;
    for (const auto& o : obs) {
        Row row{};
        std::size_t c = 0;
        row[c++] = 1;
        if (!paired) row[c++] = o.side;
        if (m.share && !m.share_fixed) row[share_column = c++] = o.log_left;
        if (m.speed) row[speed_column = c++] = *o.log_unit;
        columns = c;
        x.push_back(row);
        // Time goes as 1 / left: with the slope fixed at 1, log t + log left
        // is what is left of the time once the share is taken out.
        y.push_back(m.share && m.share_fixed ? o.y + o.log_left : o.y);
    }
    const std::size_t effect_column = paired ? 0 : 1;
    const LeastSquares ls = least_squares(x, y, columns);
    Solved s;
    if (!ls.ok || !(ls.inverse[effect_column][effect_column] > 0)) return s;
    s.rss = ls.rss;
    s.residual_df = ls.df;
    s.s2 = ls.rss / ls.df;
    s.effect = ls.beta[effect_column];
    if (paired) {
        s.se = std::sqrt(s.s2 * ls.inverse[effect_column][effect_column]);
        s.df = ls.df;
    } else {
        const auto w = welch_form(x, obs, ls, columns, effect_column);
        if (!w) return s;
        std::tie(s.se, s.df) = *w;
    }
    s.ok = true;
    // d = a - b log(left ratio): the slope b is the coefficient's negative.
    s.share_coef = m.share ? (m.share_fixed ? 1 : -ls.beta[share_column]) : 0;
    s.speed_coef = m.speed ? ls.beta[speed_column] : 0;
    return s;
}

// Does a covariate (`value` of each observation) differ between the sides?
// Paired: its contrasts' mean is not 0; unpaired: its two sides' means differ.
template <class Value>
std::optional<double> difference_p(const std::vector<Observation>& obs, bool paired, Value value) {
    std::vector<double> a, b;
    for (const auto& o : obs) (o.side > 0 || paired ? a : b).push_back(value(o));
    const auto t = paired ? stats::one_sample_t_test(a) : stats::welch_t_test(a, b);
    if (!t) return std::nullopt;
    return t->p;
}

std::string p_text(double p) {
    return p < 0.001 ? "p < 0.001" : "p = " + fixed(p, 3);
}

// The F test's p of `full` against `reduced` (fewer slopes, fitted to the
// same observations): does what `full` adds explain more than chance would?
double slopes_p(const Solved& reduced, const Solved& full, double slopes) {
    if (!reduced.ok || !full.ok || !(full.s2 > 0)) return NAN;
    return stats::f_test_p((reduced.rss - full.rss) / slopes / full.s2, slopes, full.residual_df);
}

// Which covariates the time follows, decided from their slopes' F tests
// before the effect is tested, and never from which model leaves the effect
// the smaller standard error. Both matter: choosing the basis by the effect
// test's own spread, or by a slope estimated on the same contrasts as the
// effect (the two estimates are correlated wherever the outside work's mean
// contrast is not 0), called 7 to 11% of the comparisons different at alpha
// 5% with no effect, and 20 to 30% of the net calls where the share did not
// move the time (tests/simulations/sim_outside_rounds.cpp).
struct Relation {
    bool share = false, speed = false;
    double p = NAN;            // the test the decision stood on
    double share_slope = NAN;  // estimated, in the tested model
};

// `decide`: the observations the relation is tested on, with `paired`'s
// design (an intercept; and a side's term where not paired). `max_slopes`:
// how many the effect's model can estimate (0: only the share, at slope 1).
Relation relation(const std::vector<Observation>& decide, bool paired, bool speed_known,
                  std::size_t max_slopes) {
    Relation r;
    const Solved raw = solve(decide, paired, Model{});
    const Solved share = solve(decide, paired, Model{true, false, false});
    const double share_p = slopes_p(raw, share, 1);
    r.share_slope = share.ok ? share.share_coef : NAN;
    if (!speed_known || max_slopes == 0) {
        r.share = share_p < kExplainsLevel;
        r.p = share_p;
        return r;
    }
    const Solved speed = solve(decide, paired, Model{false, true, false});
    const double speed_p = slopes_p(raw, speed, 1);
    // Room for one slope (or the two together would fit no more): the one
    // the time follows more surely.
    const auto one_of = [&] {
        const bool share_first = std::isfinite(share_p) && !(speed_p < share_p);
        r.p = share_first ? share_p : speed_p;
        (share_first ? r.share : r.speed) = r.p < kExplainsLevel;
        return r;
    };
    const Solved both = solve(decide, paired, Model{true, true, false});
    if (!both.ok) return one_of();
    // Each slope beside the other (its partial F test); both where neither
    // stands alone but the two together explain more than chance (the
    // outside share and the speed moving together).
    r.share = slopes_p(speed, both, 1) < kExplainsLevel;
    r.speed = slopes_p(share, both, 1) < kExplainsLevel;
    r.p = slopes_p(raw, both, 2);
    if (!r.share && !r.speed) r.share = r.speed = r.p < kExplainsLevel;
    if (r.share && r.speed && max_slopes < 2) {
        r.share = r.speed = false;
        return one_of();
    }
    r.share_slope = both.share_coef;
    return r;
}

// The three uses of the model: an effect paired by round (decided on the
// rounds' totals), an effect between two sides' runs (decided on the same
// runs, so the share's slope is the physics' 1 and the speed is not used:
// a slope estimated on the runs the effect is tested on, and used where it
// is significant, biases the effect's test), one side's spread (no effect).
enum class Use { paired, unpaired, spread };

OutsideFit fit(const std::vector<Observation>& obs, Use use,
               const std::vector<Observation>& decide_on) {
    const bool paired = use != Use::unpaired;
    const bool guarded = use != Use::spread;
    OutsideFit f;
    f.paired = paired;
    f.observations = obs.size();
    const std::size_t base_columns = paired ? 1 : 2;
    if (obs.size() < kMinRoundsForAdjustment + base_columns - 1) {
        f.why_not = std::to_string(obs.size()) + (paired ? " shared rounds" : " runs") +
                    "; the adjustment needs " +
                    std::to_string(kMinRoundsForAdjustment + base_columns - 1);
        return f;
    }
    const Solved raw = solve(obs, paired, Model{});
    if (!raw.ok || !(raw.s2 > 0)) {
        f.why_not = "no spread to explain";
        return f;
    }
    f.raw_sd = std::sqrt(raw.s2);

    // Where a covariate itself differs between the sides, the compared
    // thing may be what changed it, and nothing is adjusted: taking out
    // either covariate would take out part of what was compared.
    const bool speed_known =
        std::all_of(obs.begin(), obs.end(), [](const Observation& o) { return o.log_unit; }) &&
        std::all_of(decide_on.begin(), decide_on.end(),
                    [](const Observation& o) { return o.log_unit; });
    if (guarded) {
        const auto p =
            difference_p(obs, paired, [](const Observation& o) { return o.outside_pct; });
        if (p && *p < kDiffersLevel) {
            f.why_not = "the outside work differs between the sides (" + p_text(*p) +
                        "): the compared thing may be changing it";
            f.sides_differ = true;
            return f;
        }
    }
    if (guarded && speed_known) {
        const auto p = difference_p(obs, paired, [](const Observation& o) { return *o.log_unit; });
        if (p && *p < kDiffersLevel) {
            f.why_not = "the machine's speed differs between the sides (" + p_text(*p) +
                        "): the compared thing may be changing it";
            f.sides_differ = true;
            return f;
        }
    }
    // An estimated slope in the effect's model needs kMinRoundsForSlope
    // observations per covariate beyond the design's own columns; below
    // that the share's slope is the physics' 1 and the speed is not used.
    const auto room_for = [&](std::size_t slopes) {
        return obs.size() >= kMinRoundsForSlope + (base_columns - 1) + (slopes - 1);
    };
    const std::size_t max_slopes = use == Use::unpaired ? 0 : room_for(2) ? 2 : room_for(1) ? 1 : 0;
    const Relation rel = relation(decide_on, paired, speed_known, max_slopes);
    // How much of the contrasts' spread the share takes out, as it would be
    // used: said where it is not used, too.
    const auto explained_by = [&](const Model& m) {
        const Solved s = solve(obs, paired, m);
        return s.ok ? 1 - s.s2 / raw.s2 : NAN;
    };
    if (!rel.share && !rel.speed) {
        if (!std::isfinite(rel.p)) {
            f.why_not = "the outside work did not vary";
            return f;
        }
        f.explained = explained_by(Model{true, false, max_slopes == 0});
        if (std::isfinite(f.explained))
            f.residual_sd = f.raw_sd * std::sqrt(std::max(0.0, 1 - f.explained));
        f.why_not = std::string("the time follows the outside work no more than chance would (") +
                    (use == Use::paired ? "across the rounds' totals, " : "") + "F test " +
                    p_text(rel.p) + ")";
        return f;
    }
    // With the slope fixed at 1 only a time that follows the share the way
    // a CPU-bound workload's does is taken out by it.
    const bool share_fixed = max_slopes == 0;
    if (rel.share && share_fixed && !(rel.share_slope > 0)) {
        f.why_not = "the time follows the outside work the wrong way (log-share slope " +
                    fixed(rel.share_slope, 2) + ")";
        return f;
    }
    const Model chosen{rel.share, rel.speed, rel.share && share_fixed};
    const Solved best = solve(obs, paired, chosen);
    if (!best.ok) {
        f.why_not = "the outside work did not vary";
        return f;
    }
    f.uses_share = chosen.share;
    f.uses_speed = chosen.speed;
    f.share_slope = chosen.share ? best.share_coef : NAN;
    f.share_slope_estimated = chosen.share && !chosen.share_fixed;
    f.speed_slope = chosen.speed ? best.speed_coef : NAN;
    f.explained = 1 - best.s2 / raw.s2;
    f.residual_sd = std::sqrt(best.s2);
    f.effect_log = best.effect;
    f.se = best.se;
    f.df = best.df;
    f.t = best.se > 0 ? best.effect / best.se : NAN;
    f.p = best.se > 0 ? stats::t_test_p(f.t, f.df) : NAN;
    if (!std::isfinite(f.p)) {
        f.why_not = "no spread left to test";
        return f;
    }
    f.applied = true;
    return f;
}

}  // namespace

double OutsideFit::effect_pct() const {
    return 100 * (std::exp(effect_log) - 1);
}

std::string OutsideFit::description() const {
    if (!applied) return "not adjusted: " + why_not;
    std::vector<std::string> parts;
    if (uses_share)
        parts.push_back("log-share slope " + fixed(share_slope, 2) +
                        (share_slope_estimated ? " (estimated)" : " (fixed: too few rounds)"));
    if (uses_speed) parts.push_back("speed slope " + fixed(speed_slope, 2));
    std::string text;
    for (std::size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
    text += "; explains " + fixed(100 * explained, 0) + "% of the spread";
    return text;
}

std::optional<RoundContrast> round_contrast(std::span<const SignedPoint> runs,
                                            double capacity_pct) {
    RoundContrast c;
    bool units = true;
    double log_unit = 0, total_log_unit = 0;
    for (const auto& [sign, p] : runs) {
        const double left = capacity_pct - p.outside_pct;
        if (!(p.wall_s > 0) || !(left > 0)) return std::nullopt;
        c.log_time += sign * std::log(p.wall_s);
        c.log_left += sign * std::log(left);
        c.outside_pct += sign * p.outside_pct;
        c.total_log_time += std::log(p.wall_s);
        c.total_log_left += std::log(left);
        if (p.unit_cpu_us && *p.unit_cpu_us > 0) {
            log_unit += sign * std::log(*p.unit_cpu_us);
            total_log_unit += std::log(*p.unit_cpu_us);
        } else {
            units = false;
        }
    }
    if (units) {
        c.log_unit = log_unit;
        c.total_log_unit = total_log_unit;
    }
    return c;
}

OutsideFit fit_paired(std::span<const RoundContrast> rounds) {
    std::vector<Observation> obs, totals;
    for (const auto& r : rounds) {
        obs.push_back({r.log_time, 0, r.log_left, r.outside_pct, r.log_unit});
        totals.push_back({r.total_log_time, 0, r.total_log_left, 0, r.total_log_unit});
    }
    return fit(obs, Use::paired, totals);
}

OutsideFit fit_spread(std::span<const OutsidePoint> runs, double capacity_pct) {
    std::vector<Observation> obs;
    for (const auto& p : runs) {
        const SignedPoint one[] = {{1, p}};
        const auto c = round_contrast(one, capacity_pct);
        if (!c) return OutsideFit{};
        obs.push_back({c->log_time, 0, c->log_left, c->outside_pct, c->log_unit});
    }
    return fit(obs, Use::spread, obs);
}

OutsideFit fit_unpaired(std::span<const OutsidePoint> base, std::span<const OutsidePoint> other,
                        double capacity_pct) {
    std::vector<Observation> obs;
    for (const auto* side : {&base, &other})
        for (const auto& p : *side) {
            const double left = capacity_pct - p.outside_pct;
            if (!(p.wall_s > 0) || !(left > 0)) {
                OutsideFit f;
                f.why_not = "a run without a time or with no share of the machine left";
                return f;
            }
            Observation o{std::log(p.wall_s), side == &other ? 1.0 : 0.0, std::log(left),
                          p.outside_pct, std::nullopt};
            if (p.unit_cpu_us && *p.unit_cpu_us > 0) o.log_unit = std::log(*p.unit_cpu_us);
            obs.push_back(o);
        }
    return fit(obs, Use::unpaired, obs);
}

}  // namespace contest
