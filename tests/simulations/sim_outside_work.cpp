// The outside-work adjustment checked by simulation: rounds of two labels on
// a 2-CPU machine where another process takes 0 to 150% of a CPU at random
// beside each run; times made from a known effect, the share of the machine
// the outside work left, and 1% noise.
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

// One comparison's rounds: the other process is busy beside a run with
// probability `busy_share`. `new_outside_scale` < 1: the compared thing
// itself leaves the outside work less (a scheduler that starves it).
std::vector<OutsideRound> draw(std::mt19937& gen, double effect_pct, double new_outside_scale = 1,
                               double busy_share = 0.5) {
    std::uniform_real_distribution<double> busy(50, 150);
    std::bernoulli_distribution on(busy_share);
    std::normal_distribution<double> noise(0, 0.01);
    std::vector<OutsideRound> rounds(kRounds);
    for (auto& r : rounds) {
        r.base_outside_pct = on(gen) ? busy(gen) : 0;
        r.new_outside_pct = (on(gen) ? busy(gen) : 0) * new_outside_scale;
        const double t0 = 60;
        r.base_s = t0 * kCapacity / (kCapacity - r.base_outside_pct) * std::exp(noise(gen));
        r.new_s = t0 * (1 + effect_pct / 100) * kCapacity / (kCapacity - r.new_outside_pct) *
                  std::exp(noise(gen));
    }
    return rounds;
}

// The raw paired test of the same rounds: log time differences.
bool raw_called(const std::vector<OutsideRound>& rounds) {
    std::vector<double> d;
    for (const auto& r : rounds) d.push_back(std::log(r.new_s / r.base_s));
    const auto t = stats::one_sample_t_test(d);
    return t && t->p < 0.05;
}

}  // namespace

TEST_CASE("outside work: a 5% effect the raw test cannot see is called at its stated MDE",
          "[simulation]") {
    std::mt19937 gen(20261202);
    int adjusted_calls = 0, raw_calls = 0, applied = 0;
    double mde_sum = 0, slope_sum = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto rounds = draw(gen, 5);
        const auto a = adjust_for_outside_work(rounds, kCapacity);
        raw_calls += raw_called(rounds);
        if (!a.applied) continue;
        ++applied;
        adjusted_calls += a.p < 0.05;
        mde_sum += a.mde_pct;
        slope_sum += a.slope;
    }
    INFO("applied " << applied << ", adjusted calls " << adjusted_calls << ", raw calls "
                    << raw_calls << ", mean MDE " << mde_sum / applied << "%, mean slope "
                    << slope_sum / applied);
    // Not applied only where the random outside work happened to differ
    // between the labels (about 1 in 20 by construction).
    CHECK(applied >= kRepetitions * 0.85);
    CHECK(adjusted_calls >= applied * 0.8);
    CHECK(mde_sum / applied <= 5);
    CHECK(raw_calls <= kRepetitions * 0.5);
    CHECK(slope_sum / applied == Approx(1).margin(0.1));
}

TEST_CASE("outside work: no true difference is called at most about alpha of the time",
          "[simulation]") {
    std::mt19937 gen(7);
    int calls = 0, applied = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto a = adjust_for_outside_work(draw(gen, 0), kCapacity);
        if (!a.applied) continue;
        ++applied;
        calls += a.p < 0.05;
    }
    INFO(calls << " false calls of " << applied);
    // 5% with a binomial margin of three standard errors over 400.
    CHECK(calls <= applied * 0.05 + 3 * std::sqrt(applied * 0.05 * 0.95));
}

TEST_CASE("outside work: refused where the compared thing changes the outside work itself",
          "[simulation]") {
    std::mt19937 gen(11);
    int refused = 0;
    for (int i = 0; i < kRepetitions; ++i) {
        // The other process runs throughout, and the new label leaves it a
        // third of what base does: the difference in the share is the
        // compared thing's doing, not noise.
        const auto a = adjust_for_outside_work(draw(gen, 5, 1.0 / 3, 1), kCapacity);
        if (!a.applied) {
            ++refused;
            if (refused == 1) CHECK_THAT(a.why_not, Catch::Contains("outside work differs"));
        }
    }
    INFO(refused << " refused of " << kRepetitions);
    CHECK(refused >= kRepetitions * 0.95);
}

TEST_CASE("outside work: too few rounds, and a quiet machine, are said, not adjusted",
          "[simulation]") {
    std::mt19937 gen(3);
    auto two = draw(gen, 5);
    two.resize(2);
    const auto few = adjust_for_outside_work(two, kCapacity);
    CHECK_FALSE(few.applied);
    CHECK_THAT(few.why_not, Catch::Contains("rounds"));
    std::vector<OutsideRound> quiet(kRounds);
    std::normal_distribution<double> noise(0, 0.01);
    for (auto& r : quiet) {
        r.base_s = 60 * std::exp(noise(gen));
        r.new_s = 63 * std::exp(noise(gen));
    }
    const auto none = adjust_for_outside_work(quiet, kCapacity);
    CHECK_FALSE(none.applied);
    CHECK_THAT(none.why_not, Catch::Contains("explains none"));
}
