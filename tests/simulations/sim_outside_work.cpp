// The outside-work adjustment checked by simulation: rounds of two labels on
// a 2-CPU machine where another process takes 50 to 150% of a CPU at random
// beside a run, and a host that hides its other tenants slows the CPU by up
// to 30% at random (seen only in the fixed unit of work's CPU time); times
// made from a known effect, the share of the machine the outside work left,
// the CPU's speed, and 1% noise.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/outside_work.h"
#include "contest/analysis/stats.h"

using namespace contest;

namespace {

constexpr double kCapacity = 200;  // 2 CPUs
constexpr int kRepetitions = 400;
constexpr int kRounds = 8;
constexpr double kLevel = 0.05;

struct Machine {
    double busy_share = 0.5;       // chance the other process runs beside a run
    double new_outside_scale = 1;  // < 1: the compared thing leaves the outside work less
    double max_slowdown = 0;       // the host's hidden share: up to this much slower
    double new_slowdown = 0;       // > 0: the compared thing slows the CPU itself, by this
};

struct Comparison {
    std::vector<OutsidePoint> base, other;  // by round
};

Comparison draw(std::mt19937& gen, double effect_pct, const Machine& m = {}) {
    std::uniform_real_distribution<double> busy(50, 150), slow(0, 1);
    std::bernoulli_distribution on(m.busy_share);
    std::normal_distribution<double> noise(0, 0.01), unit_noise(0, 0.02);
    Comparison c;
    for (int r = 0; r < kRounds; ++r)
        for (bool is_new : {false, true}) {
            OutsidePoint p;
            p.outside_pct = (on(gen) ? busy(gen) : 0) * (is_new ? m.new_outside_scale : 1);
            const double slowdown =
                (1 + m.max_slowdown * slow(gen)) * (is_new ? 1 + m.new_slowdown : 1);
            p.unit_cpu_us = 100 * slowdown * std::exp(unit_noise(gen));
            p.wall_s = 60 * (is_new ? 1 + effect_pct / 100 : 1) * kCapacity /
                       (kCapacity - p.outside_pct) * slowdown * std::exp(noise(gen));
            (is_new ? c.other : c.base).push_back(p);
        }
    return c;
}

std::vector<RoundContrast> contrasts(const Comparison& c) {
    std::vector<RoundContrast> out;
    for (std::size_t r = 0; r < c.base.size(); ++r) {
        const SignedPoint round[] = {{1, c.other[r]}, {-1, c.base[r]}};
        out.push_back(*round_contrast(round, kCapacity));
    }
    return out;
}

// The raw paired test of the same rounds: log time differences.
bool raw_called(const Comparison& c) {
    std::vector<double> d;
    for (std::size_t r = 0; r < c.base.size(); ++r)
        d.push_back(std::log(c.other[r].wall_s / c.base[r].wall_s));
    const auto t = stats::one_sample_t_test(d);
    return t && t->p < kLevel;
}

double mde_pct(const OutsideFit& f) {
    return 100 * (std::exp(stats::detectable_shift_in_se(f.df, kLevel, 0.8) * f.se) - 1);
}

struct Tally {
    int applied = 0, calls = 0, raw_calls = 0, share = 0, speed = 0;
    double mde_sum = 0, share_slope_sum = 0;
    void add(const OutsideFit& f, bool raw) {
        raw_calls += raw;
        if (!f.applied) return;
        ++applied;
        calls += f.p < kLevel && f.effect_log > 0;
        mde_sum += mde_pct(f);
        if (f.uses_share) {
            ++share;
            share_slope_sum += f.share_slope;
        }
        speed += f.uses_speed;
    }
};

}  // namespace

TEST_CASE("outside work: a 5% effect the raw test cannot see is called at its stated MDE",
          "[simulation]") {
    std::mt19937 gen(20261202);
    Tally t;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto c = draw(gen, 5);
        t.add(fit_paired(contrasts(c)), raw_called(c));
    }
    INFO("applied " << t.applied << ", adjusted calls " << t.calls << ", raw calls " << t.raw_calls
                    << ", mean MDE " << t.mde_sum / t.applied << "%, mean slope "
                    << t.share_slope_sum / t.share);
    // Not applied only where the random outside work happened to differ
    // between the labels (about 1 in 20 by construction).
    CHECK(t.applied >= kRepetitions * 0.85);
    CHECK(t.calls >= t.applied * 0.8);
    CHECK(t.mde_sum / t.applied <= 5);
    CHECK(t.raw_calls <= kRepetitions * 0.5);
    CHECK(t.share_slope_sum / t.share == Approx(1).margin(0.1));
}

TEST_CASE("outside work: a host's hidden share is taken out through the machine's speed",
          "[simulation]") {
    // No process beside the runs: only the host slows the CPU, by up to 30%.
    std::mt19937 gen(5);
    Tally t;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto c = draw(gen, 5, Machine{0, 1, 0.3});
        t.add(fit_paired(contrasts(c)), raw_called(c));
    }
    INFO("applied " << t.applied << " (speed " << t.speed << "), adjusted calls " << t.calls
                    << ", raw calls " << t.raw_calls << ", mean MDE " << t.mde_sum / t.applied);
    CHECK(t.applied >= kRepetitions * 0.85);
    CHECK(t.speed >= t.applied * 0.95);
    CHECK(t.calls >= t.applied * 0.8);
    CHECK(t.raw_calls <= kRepetitions * 0.5);
}

TEST_CASE("outside work: both covariates where both take a share", "[simulation]") {
    std::mt19937 gen(17);
    Tally t;
    int both = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto c = draw(gen, 5, Machine{0.5, 1, 0.3});
        const auto f = fit_paired(contrasts(c));
        both += f.applied && f.uses_share && f.uses_speed;
        t.add(f, raw_called(c));
    }
    INFO("applied " << t.applied << " (both " << both << "), adjusted calls " << t.calls
                    << ", raw calls " << t.raw_calls);
    CHECK(both >= t.applied * 0.9);
    CHECK(t.calls >= t.applied * 0.8);
}

TEST_CASE("outside work: no true difference is called at most about alpha of the time",
          "[simulation]") {
    for (const Machine m : {Machine{}, Machine{0, 1, 0.3}, Machine{0.5, 1, 0.3}}) {
        std::mt19937 gen(7);
        int calls = 0, applied = 0;
        for (int i = 0; i < kRepetitions; ++i) {
            const auto f = fit_paired(contrasts(draw(gen, 0, m)));
            if (!f.applied) continue;
            ++applied;
            calls += f.p < kLevel;
        }
        INFO(calls << " false calls of " << applied << " with busy " << m.busy_share
                   << ", slowdown " << m.max_slowdown);
        // 5% with a binomial margin of three standard errors.
        CHECK(calls <= applied * kLevel + 3 * std::sqrt(applied * kLevel * (1 - kLevel)));
    }
}

TEST_CASE("outside work: refused where the compared thing changes the outside work itself",
          "[simulation]") {
    std::mt19937 gen(11);
    int refused = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        // The other process runs throughout, and the new label leaves it a
        // third of what base does: the difference in the share is the
        // compared thing's doing, not noise.
        const auto f = fit_paired(contrasts(draw(gen, 5, Machine{1, 1.0 / 3})));
        if (!f.applied) {
            ++refused;
            if (refused == 1) CHECK_THAT(f.why_not, Catch::Contains("outside work differs"));
        }
    }
    INFO(refused << " refused of " << kRepetitions);
    CHECK(refused >= kRepetitions * 0.95);
}

TEST_CASE("outside work: the speed is not used where the compared thing slows the CPU",
          "[simulation]") {
    // A kernel whose own doing slows the CPU by 20% (a frequency governor,
    // say) beside a host that slows it by up to 30%: that slowdown is part
    // of its effect.
    std::mt19937 gen(13);
    int speed_used = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto f = fit_paired(contrasts(draw(gen, 5, Machine{0, 1, 0.3, 0.2})));
        speed_used += f.applied && f.uses_speed;
    }
    INFO("speed used in " << speed_used << " of " << kRepetitions);
    CHECK(speed_used <= kRepetitions * 0.1);
}

TEST_CASE("outside work: without shared rounds, a term for the side", "[simulation]") {
    std::mt19937 gen(19);
    int applied = 0, calls = 0, raw_calls = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto c = draw(gen, 5);
        const auto f = fit_unpaired(c.base, c.other, kCapacity);
        std::vector<double> a, b;
        for (const auto& p : c.other) a.push_back(p.wall_s);
        for (const auto& p : c.base) b.push_back(p.wall_s);
        const auto w = stats::welch_t_test(a, b);
        raw_calls += w && w->p < kLevel;
        if (!f.applied) continue;
        ++applied;
        CHECK_FALSE(f.paired);
        calls += f.p < kLevel && f.effect_log > 0;
    }
    INFO("applied " << applied << ", calls " << calls << ", raw (Welch) calls " << raw_calls);
    CHECK(applied >= kRepetitions * 0.85);
    CHECK(calls >= applied * 0.8);
    CHECK(raw_calls <= kRepetitions * 0.5);
}

TEST_CASE("outside work: too few rounds, and a quiet machine, are said, not adjusted",
          "[simulation]") {
    std::mt19937 gen(3);
    auto c = draw(gen, 5);
    auto rounds = contrasts(c);
    rounds.resize(2);
    const auto few = fit_paired(rounds);
    CHECK_FALSE(few.applied);
    CHECK_THAT(few.why_not, Catch::Contains("rounds"));
    const auto quiet = draw(gen, 5, Machine{0});
    const auto none = fit_paired(contrasts(quiet));
    CHECK_FALSE(none.applied);
    CHECK_THAT(none.why_not, Catch::Contains("no more than chance"));
}
