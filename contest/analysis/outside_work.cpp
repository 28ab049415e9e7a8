#include "contest/analysis/outside_work.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "contest/analysis/stats.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

// A covariate is said to differ between the sides when a test of it finds
// it at this level: then adjusting by it could take out what the compared
// thing itself did.
constexpr double kDiffersLevel = 0.05;
// An estimated slope must explain more than chance would at this level
// (an F test of the covariates): with 8 rounds, a slope fitted to noise
// alone explains a tenth of the spread about one time in five.
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
    double share_coef = 0, speed_coef = 0;
};

constexpr std::size_t kMaxColumns = 4;
using Row = std::array<double, kMaxColumns>;

struct LeastSquares {
    bool ok = false;
    Row beta{};
    double effect_var_factor = 0;  // (X'X)^-1 at the effect's column
    double rss = 0, df = 0;
};

// Least squares of y on the columns, by the normal equations (at most four
// columns of logs: well conditioned enough), with (X'X)^-1 by Gauss-Jordan
// for the effect's standard error.
LeastSquares least_squares(const std::vector<Row>& x, const std::vector<double>& y,
                           std::size_t columns, std::size_t effect_column) {
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
        for (std::size_t c = 0; c < columns; ++c) out.beta[r] += a[r][columns + c] * xty[c];
    for (std::size_t i = 0; i < n; ++i) {
        double fit = 0;
        for (std::size_t c = 0; c < columns; ++c) fit += out.beta[c] * x[i][c];
        out.rss += (y[i] - fit) * (y[i] - fit);
    }
    out.df = static_cast<double>(n - columns);
    out.effect_var_factor = a[effect_column][columns + effect_column];
    out.ok = std::isfinite(out.rss) && out.effect_var_factor > 0;
    return out;
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
    const LeastSquares ls = least_squares(x, y, columns, effect_column);
    Solved s;
    if (!ls.ok) return s;
    s.ok = true;
    s.df = ls.df;
    s.rss = ls.rss;
    s.s2 = ls.rss / ls.df;
    s.effect = ls.beta[effect_column];
    s.se = std::sqrt(s.s2 * ls.effect_var_factor);
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

// `guarded`: refused where a covariate differs between the sides (not for
// one side's spread, where there are no sides).
OutsideFit fit(const std::vector<Observation>& obs, bool paired, bool guarded = true) {
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
        std::all_of(obs.begin(), obs.end(), [](const Observation& o) { return o.log_unit; });
    if (guarded) {
        const auto p =
            difference_p(obs, paired, [](const Observation& o) { return o.outside_pct; });
        if (p && *p < kDiffersLevel) {
            f.why_not = "the outside work differs between the sides (" + p_text(*p) +
                        "): the compared thing may be changing it";
            return f;
        }
    }
    if (guarded && speed_known) {
        const auto p = difference_p(obs, paired, [](const Observation& o) { return *o.log_unit; });
        if (p && *p < kDiffersLevel) {
            f.why_not = "the machine's speed differs between the sides (" + p_text(*p) +
                        "): the compared thing may be changing it";
            return f;
        }
    }
    // An estimated slope needs kMinRoundsForSlope observations per
    // covariate beyond the design's own columns.
    const auto room_for = [&](std::size_t slopes) {
        return obs.size() >= kMinRoundsForSlope + (base_columns - 1) + (slopes - 1);
    };
    // The share is always a candidate: its slope is fixed at 1 when the
    // observations are too few to estimate it.
    std::vector<Model> candidates{Model{true, false, !room_for(1)}};
    if (speed_known && room_for(1)) candidates.push_back(Model{false, true, false});
    if (speed_known && room_for(2)) candidates.push_back(Model{true, true, false});
    Solved best;
    Model chosen;
    for (const Model& m : candidates) {
        const Solved s = solve(obs, paired, m);
        if (s.ok && (!best.ok || s.s2 < best.s2)) {
            best = s;
            chosen = m;
        }
    }
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
    const double slopes = (chosen.share && !chosen.share_fixed ? 1 : 0) + (chosen.speed ? 1 : 0);
    const double chance_p =
        slopes > 0 ? stats::f_test_p((raw.rss - best.rss) / slopes / best.s2, slopes, best.df) : 0;
    if (!(f.explained >= kMinExplained)) {
        f.why_not =
            "the outside work explains " +
            std::string(f.explained > 0 ? "only " + fixed(100 * f.explained, 0) + "%" : "none") +
            " of the spread";
        return f;
    }
    if (!(chance_p < kExplainsLevel)) {
        f.why_not = "the outside work explains " + fixed(100 * f.explained, 0) +
                    "% of the spread, no more than chance would (F test " + p_text(chance_p) + ")";
        return f;
    }
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
    double log_unit = 0;
    for (const auto& [sign, p] : runs) {
        const double left = capacity_pct - p.outside_pct;
        if (!(p.wall_s > 0) || !(left > 0)) return std::nullopt;
        c.log_time += sign * std::log(p.wall_s);
        c.log_left += sign * std::log(left);
        c.outside_pct += sign * p.outside_pct;
        if (p.unit_cpu_us && *p.unit_cpu_us > 0)
            log_unit += sign * std::log(*p.unit_cpu_us);
        else
            units = false;
    }
    if (units) c.log_unit = log_unit;
    return c;
}

OutsideFit fit_paired(std::span<const RoundContrast> rounds) {
    std::vector<Observation> obs;
    for (const auto& r : rounds)
        obs.push_back({r.log_time, 0, r.log_left, r.outside_pct, r.log_unit});
    return fit(obs, true);
}

OutsideFit fit_spread(std::span<const OutsidePoint> runs, double capacity_pct) {
    std::vector<Observation> obs;
    for (const auto& p : runs) {
        const SignedPoint one[] = {{1, p}};
        const auto c = round_contrast(one, capacity_pct);
        if (!c) return OutsideFit{};
        obs.push_back({c->log_time, 0, c->log_left, c->outside_pct, c->log_unit});
    }
    return fit(obs, true, false);
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
    return fit(obs, false);
}

}  // namespace contest
