#include "contest/analysis/bisect_decision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "contest/analysis/stats.h"
#include "contest/sys/number_text.h"

namespace contest {
namespace {

// The shifts of the ends' rounds, bad - good.
std::vector<double> shifts_of(const std::vector<EndsRound>& rounds) {
    std::vector<double> d;
    d.reserve(rounds.size());
    for (const auto& r : rounds) d.push_back(r.bad - r.good);
    return d;
}

// How much larger than its estimate the spread is taken, from n rounds:
// the 90% upper bound of a variance estimated with n - 1 degrees of freedom.
double spread_inflation(double n) {
    if (n < 2) return std::numeric_limits<double>::quiet_NaN();
    return (n - 1) / stats::chi_squared_quantile(0.1, n - 1);
}

}  // namespace

EndsVerdict judge_ends(const std::vector<EndsRound>& rounds, const BisectRule& rule,
                       const std::string& unit) {
    EndsVerdict v;
    v.rounds = static_cast<unsigned>(rounds.size());
    const std::vector<double> d = shifts_of(rounds);
    const stats::Summary s = stats::summarize(d);
    v.shift = s.mean;
    v.sd = s.sd;
    if (const auto t = stats::one_sample_t_test(d)) {
        v.p = t->p;
        const double df = static_cast<double>(d.size()) - 1;
        v.could_see = stats::detectable_shift_in_se(df, rule.ends_level, 0.8) * t->se;
    } else {
        v.could_see = std::numeric_limits<double>::quiet_NaN();
    }
    const std::string seen = "bad - good = " + six_digits(v.shift) + unit + " over " +
                             std::to_string(v.rounds) + " rounds, p = " + six_digits(v.p) +
                             ", these rounds could see " + six_digits(v.could_see) + unit;
    if (v.rounds >= rule.ends_min_rounds && v.p < rule.ends_level) {
        v.state = EndsState::differ;
        v.why = "the ends differ: " + seen;
    } else if (v.rounds >= rule.ends_max_rounds) {
        v.state = EndsState::same;
        v.why = "cannot tell the ends apart after " + std::to_string(v.rounds) + " rounds: " + seen;
    } else {
        v.why = seen;
    }
    return v;
}

double ends_false_differ_rate(const BisectRule& rule) {
    constexpr int kSequences = 100000;
    // |t| beyond these is p < ends_level, two-sided, as judge_ends asks it,
    // after each round n (indexed by n).
    std::vector<double> critical(rule.ends_max_rounds + 1, 0);
    for (unsigned n = std::max(2u, rule.ends_min_rounds); n <= rule.ends_max_rounds; ++n)
        critical[n] = stats::t_quantile(1 - rule.ends_level / 2, n - 1);
    std::mt19937_64 rng(55);
    std::normal_distribution<double> noise;
    int differ = 0;
    for (int i = 0; i < kSequences; ++i) {
        double sum = 0, sum_sq = 0;
        for (unsigned n = 1; n <= rule.ends_max_rounds; ++n) {
            const double d = noise(rng);
            sum += d;
            sum_sq += d * d;
            if (n < rule.ends_min_rounds || n < 2) continue;
            const double mean = sum / n, var = (sum_sq - n * mean * mean) / (n - 1);
            if (var > 0 && mean * mean > critical[n] * critical[n] * var / n) {
                ++differ;
                break;
            }
        }
    }
    return static_cast<double>(differ) / kSequences;
}

StepVerdict judge_step(const std::vector<StepRound>& step, const std::vector<EndsRound>& ends,
                       const BisectRule& rule) {
    StepVerdict v;
    v.rounds = static_cast<unsigned>(step.size());
    const stats::Summary s = stats::summarize(shifts_of(ends));
    // The hypotheses a shift apart that the ends' rounds surely exceed: the
    // lower end of the shift's one-sided 90% interval (a shift estimated
    // from rounds that just told the ends apart is too large by chance, and
    // a test between hypotheses closer than the truth only errs less), and
    // a spread as large as its 90% upper bound.
    const double n = static_cast<double>(s.n);
    const double se = s.sd / std::sqrt(n);
    const double t = n >= 2 ? stats::t_quantile(0.9, n - 1) : 0;
    const double magnitude = std::max(0.0, std::abs(s.mean) - t * se);
    const double shift = s.mean < 0 ? -magnitude : magnitude;
    // var(y) = 1.5 s^2 = 0.75 var(bad - good).
    const double var_y = 0.75 * s.sd * s.sd * spread_inflation(n);
    if (step.empty() || !std::isfinite(var_y) || !(var_y > 0) || shift == 0) {
        v.at_bound = v.rounds >= rule.step_max_rounds;
        return v;
    }
    double sum_y = 0, sum_position = 0;
    for (const auto& r : step) {
        const double y = r.tested - (r.good + r.bad) / 2;
        sum_y += std::clamp(y, -std::abs(shift), std::abs(shift));
        sum_position += y / s.mean + 0.5;
    }
    const double k = static_cast<double>(step.size());
    v.position = sum_position / k;
    // Three hypotheses, the tested commit's y at -shift/2 (like good), 0
    // (halfway: neither end) or +shift/2 (like bad); the log-likelihood
    // ratios of each pair, all from sum(y).
    v.llr = shift * sum_y / var_y;  // bad over good
    const double bad_over_half = shift / 2 * (sum_y - k * shift / 4) / var_y;
    const double good_over_half = -shift / 2 * (sum_y + k * shift / 4) / var_y;
    const double bound = std::log((1 - rule.error_rate) / rule.error_rate);
    const double halfway_bound = std::log((1 - rule.halfway_error) / rule.halfway_error);
    const bool enough = v.rounds >= rule.step_min_rounds;
    const double toward = v.llr > 0 ? bad_over_half : good_over_half;
    v.sureness = 1 / (1 + std::exp(-std::abs(v.llr)));
    v.over_halfway = 1 / (1 + std::exp(-toward));
    if (enough && good_over_half <= -bound && bad_over_half <= -bound) {
        v.state = StepClass::between;
        // Halfway over either end: its posterior among the three, equal priors.
        v.sureness = 1 / (1 + std::exp(good_over_half) + std::exp(bad_over_half));
        v.over_halfway = 0;
    } else if (enough && std::abs(v.llr) >= bound && toward >= halfway_bound) {
        v.state = v.llr > 0 ? StepClass::like_bad : StepClass::like_good;
    } else {
        v.at_bound = v.rounds >= rule.step_max_rounds;
    }
    return v;
}

double answer_sureness(const std::vector<StepVerdict>& steps) {
    double p = 1;
    for (const auto& s : steps)
        if (s.state != StepClass::unknown) p *= s.sureness;
    return p;
}

}  // namespace contest
