#include "contest/analysis/bisect_decision.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
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

namespace {

// The three sums a step decides from, each a log-likelihood ratio over the
// step's rounds: like bad over like good, like bad over halfway, like good
// over halfway.
struct StepEvidence {
    double bad_over_good = 0, bad_over_half = 0, good_over_half = 0;
};

// The ends' rounds before this step's (the step's own rounds are the last
// of `ends`): what the way a step is judged is chosen from, so that the
// tested commit's figures never choose their own test.
std::vector<EndsRound> ends_before(const std::vector<StepRound>& step,
                                   const std::vector<EndsRound>& ends) {
    const std::size_t before = ends.size() >= step.size() ? ends.size() - step.size() : 0;
    if (before < 2) return ends;
    return {ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(before)};
}

// Round by round pays when the ends' figures move together: y's spread
// (0.75 var(bad - good), as above) below one figure's own (the mean of the
// ends' variances). When the machine's speed moves each round's three
// figures alike it does; when each guest's figure is drawn on its own (a
// TCG guest's load doing 15 000 or 31 000 a window whatever the round),
// subtracting the ends' mean only adds their noise to the tested commit's.
bool rounds_move_together(const std::vector<EndsRound>& ends) {
    std::vector<double> good, bad;
    for (const auto& r : ends) good.push_back(r.good), bad.push_back(r.bad);
    const stats::Summary g = stats::summarize(good), b = stats::summarize(bad);
    const stats::Summary d = stats::summarize(shifts_of(ends));
    if (!(d.n >= 2)) return true;
    return 0.75 * d.sd * d.sd < (g.sd * g.sd + b.sd * b.sd) / 2;
}

// Paired: y = tested - (good + bad) / 2 per round, normal with the spread
// the ends' pairs give (the header's model). Each y is clipped to +-shift.
StepEvidence paired_evidence(const std::vector<StepRound>& step, double shift, double var_y) {
    StepEvidence e;
    double sum_y = 0;
    for (const auto& r : step)
        sum_y += std::clamp(r.tested - (r.good + r.bad) / 2, -std::abs(shift), std::abs(shift));
    const double k = static_cast<double>(step.size());
    e.bad_over_good = shift * sum_y / var_y;
    e.bad_over_half = shift / 2 * (sum_y - k * shift / 4) / var_y;
    e.good_over_half = -shift / 2 * (sum_y + k * shift / 4) / var_y;
    return e;
}

// A kernel density estimate of a figure, Gaussian kernels at the given
// figures, the bandwidth Silverman's rule of thumb on a spread taken as
// large as its 90% upper bound (few rounds: a wider, humbler density).
class FigureDensity {
  public:
    FigureDensity(std::vector<double> figures, double rounds, double extra_var = 0)
        : figures_(std::move(figures)) {
        const stats::Summary s = stats::summarize(figures_);
        std::vector<double> sorted = figures_;
        std::sort(sorted.begin(), sorted.end());
        const auto at = [&](double q) {
            return sorted[static_cast<std::size_t>(q * (sorted.size() - 1))];
        };
        const double iqr_sd = (at(0.75) - at(0.25)) / 1.34;
        const double sd = iqr_sd > 0 ? std::min(s.sd, iqr_sd) : s.sd;
        const double h = 0.9 * sd * std::sqrt(spread_inflation(rounds)) * std::pow(rounds, -0.2);
        var_ = h * h + extra_var;
    }
    bool usable() const { return std::isfinite(var_) && var_ > 0; }
    double operator()(double x) const {
        double sum = 0;
        for (double f : figures_) sum += std::exp(-(x - f) * (x - f) / (2 * var_));
        return sum / (static_cast<double>(figures_.size()) * std::sqrt(2 * M_PI * var_));
    }

  private:
    std::vector<double> figures_;
    double var_ = 0;
};

// Unpaired: each hypothesis a density of the tested commit's figure, from
// the ends' figures over every round: like good, the good end's; like bad,
// the bad end's; halfway, the means of good figures with bad ones (a figure
// halfway between the ends in every way the ends vary: the two values of a
// two-valued good end make two halfway values), its kernels
// wide enough that its spread is one end's, not the half it would have as a
// mean of two. Each density is 95% its estimate and 5% one broad normal
// over both ends, the same for all three, so a figure far from every end
// says nothing. Each round's log ratio is weighed by `humility`, the
// paired test's caution in this test's terms (there the shift is taken at
// the lower end of its interval, and a normal likelihood ratio goes with the
// shift squared), then clipped to half the decision's bound, so that no
// single round decides a step.
std::optional<StepEvidence> density_evidence(const std::vector<StepRound>& step,
                                             const std::vector<EndsRound>& ends,
                                             const BisectRule& rule, double humility) {
    std::vector<double> good, bad, half;
    for (const auto& r : ends) good.push_back(r.good), bad.push_back(r.bad);
    // Each good figure with up to 8 bad ones (the next rounds', wrapping):
    // the same distribution as every pair, in linear time (a long
    // bisection's hundred rounds would make ten thousand pairs).
    const std::size_t partners = std::min<std::size_t>(bad.size(), 8);
    for (std::size_t i = 0; i < good.size(); ++i)
        for (std::size_t k = 0; k < partners; ++k)
            half.push_back((good[i] + bad[(i + k) % bad.size()]) / 2);
    const double n = static_cast<double>(ends.size());
    const stats::Summary g = stats::summarize(good), b = stats::summarize(bad);
    const FigureDensity like_good(good, n), like_bad(bad, n);
    const FigureDensity halfway(half, n, (g.sd * g.sd + b.sd * b.sd) / 4);
    if (!like_good.usable() || !like_bad.usable() || !halfway.usable()) return std::nullopt;
    const double broad_sd = std::abs(b.mean - g.mean) + g.sd + b.sd;
    const double mid = (g.mean + b.mean) / 2;
    const auto broad = [&](double x) {
        const double z = (x - mid) / broad_sd;
        return std::exp(-z * z / 2) / (broad_sd * std::sqrt(2 * M_PI));
    };
    const double cap = std::log((1 - rule.error_rate) / rule.error_rate) / 2;
    const auto ratio = [&](double a, double c) {
        return std::clamp(humility * (std::log(a) - std::log(c)), -cap, cap);
    };
    StepEvidence e;
    for (const auto& r : step) {
        const double x = r.tested, base = 0.05 * broad(x);
        const double pg = 0.95 * like_good(x) + base, pb = 0.95 * like_bad(x) + base,
                     ph = 0.95 * halfway(x) + base;
        if (!(pg > 0 && pb > 0 && ph > 0)) continue;  // beyond what a double holds: says nothing
        e.bad_over_good += ratio(pb, pg);
        e.bad_over_half += ratio(pb, ph);
        e.good_over_half += ratio(pg, ph);
    }
    return e;
}

}  // namespace

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
    double sum_position = 0;
    for (const auto& r : step) sum_position += (r.tested - (r.good + r.bad) / 2) / s.mean + 0.5;
    const double k = static_cast<double>(step.size());
    v.position = sum_position / k;
    v.paired = rounds_move_together(ends_before(step, ends));
    std::optional<StepEvidence> e;
    if (v.paired)
        e = paired_evidence(step, shift, var_y);
    else
        e = density_evidence(step, ends, rule, (shift / s.mean) * (shift / s.mean));
    if (!e) {
        v.at_bound = v.rounds >= rule.step_max_rounds;
        return v;
    }
    // Three hypotheses, the tested commit like good, halfway (neither end)
    // or like bad; each pair's log-likelihood ratio from the evidence.
    v.llr = e->bad_over_good;
    const double bound = std::log((1 - rule.error_rate) / rule.error_rate);
    const double halfway_bound = std::log((1 - rule.halfway_error) / rule.halfway_error);
    const bool enough = v.rounds >= rule.step_min_rounds;
    const double toward = v.llr > 0 ? e->bad_over_half : e->good_over_half;
    v.sureness = 1 / (1 + std::exp(-std::abs(v.llr)));
    v.over_halfway = 1 / (1 + std::exp(-toward));
    if (enough && e->good_over_half <= -bound && e->bad_over_half <= -bound) {
        v.state = StepClass::between;
        // Halfway over either end: its posterior among the three, equal priors.
        v.sureness = 1 / (1 + std::exp(e->good_over_half) + std::exp(e->bad_over_half));
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
