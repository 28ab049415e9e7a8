// The verdict of record under --adjust outside with few rounds and no true
// effect: net of outside work where the adjustment applies, the raw test
// where it is refused. Choosing the basis from the data can only keep the
// false-call rate at alpha if the choice is made from the covariates'
// relation to the time, not from which basis gives the smaller spread of the
// effect test; this checks the rule outside_work.cpp states, at 3 to 8
// rounds (paired) and 3 to 8 runs a side (unpaired), with an outside share
// that moves the time (a CPU-bound workload) and one that does not (a
// workload that waits on something else), both beside a machine speed that
// is only noise.
//
// A 2-CPU machine where another process takes 50 to 150% of a CPU beside
// half the runs, 3% noise on the log time, and the fixed unit of work's CPU
// time moving by 2% at random.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/outside_work.h"
#include "contest/analysis/stats.h"

using namespace contest;

namespace {

constexpr double kCapacity = 200;  // 2 CPUs
constexpr double kAlpha = 0.05;
constexpr int kRepetitions = 10000;

struct Side {
    std::vector<OutsidePoint> runs;
};

OutsidePoint draw_run(std::mt19937& gen, bool relevant) {
    std::uniform_real_distribution<double> busy(50, 150);
    std::bernoulli_distribution on(0.5);
    std::normal_distribution<double> noise(0, 0.03), unit_noise(0, 0.02);
    OutsidePoint p;
    p.outside_pct = on(gen) ? busy(gen) : 0;
    p.unit_cpu_us = 100 * std::exp(unit_noise(gen));
    const double share = relevant ? kCapacity / (kCapacity - p.outside_pct) : 1;
    p.wall_s = 60 * share * std::exp(noise(gen));
    return p;
}

std::vector<OutsidePoint> draw_side(std::mt19937& gen, int n, bool relevant) {
    std::vector<OutsidePoint> out;
    for (int i = 0; i < n; ++i) out.push_back(draw_run(gen, relevant));
    return out;
}

// The verdict of record's p: the net test's where it applies; none where
// the outside work or the speed differs between the sides (neither basis
// is a verdict then, outside_tests.cpp); else the raw test's (paired t on
// the log differences, or Welch on the times, as the report's raw tests).
double paired_verdict_p(const std::vector<OutsidePoint>& base,
                        const std::vector<OutsidePoint>& fresh, bool& applied) {
    std::vector<RoundContrast> rounds;
    std::vector<double> d;
    for (std::size_t r = 0; r < base.size(); ++r) {
        const SignedPoint round[] = {{1, fresh[r]}, {-1, base[r]}};
        rounds.push_back(*round_contrast(round, kCapacity));
        d.push_back(std::log(fresh[r].wall_s / base[r].wall_s));
    }
    const OutsideFit f = fit_paired(rounds);
    applied = f.applied;
    if (f.applied) return f.p;
    if (f.sides_differ) return 1;
    const auto t = stats::one_sample_t_test(d);
    return t ? t->p : 1;
}

double unpaired_verdict_p(const std::vector<OutsidePoint>& base,
                          const std::vector<OutsidePoint>& fresh, bool& applied) {
    const OutsideFit f = fit_unpaired(base, fresh, kCapacity);
    applied = f.applied;
    if (f.applied) return f.p;
    if (f.sides_differ) return 1;
    std::vector<double> a, b;
    for (const auto& p : fresh) a.push_back(p.wall_s);
    for (const auto& p : base) b.push_back(p.wall_s);
    const auto w = stats::welch_t_test(a, b);
    return w ? w->p : 1;
}

struct Rate {
    int calls = 0, applied = 0, applied_calls = 0;
    double rate() const { return static_cast<double>(calls) / kRepetitions; }
};

Rate false_calls(int n, bool relevant, bool paired, unsigned seed) {
    std::mt19937 gen(seed);
    Rate r;
    for (int i = 0; i < kRepetitions; ++i) {
        const auto base = draw_side(gen, n, relevant);
        const auto fresh = draw_side(gen, n, relevant);
        bool applied = false;
        const double p = paired ? paired_verdict_p(base, fresh, applied)
                                : unpaired_verdict_p(base, fresh, applied);
        const bool called = p < kAlpha;
        r.calls += called;
        r.applied += applied;
        r.applied_calls += applied && called;
    }
    return r;
}

}  // namespace

TEST_CASE(
    "outside work: with 3 to 8 rounds and no effect, the verdict of record's false calls "
    "stay within alpha + 2 SE",
    "[simulation]") {
    const double se = std::sqrt(kAlpha * (1 - kAlpha) / kRepetitions);
    // CONTEST_SIM_PRINT=1 prints the table the docs quote (docs/noise.md).
    const bool print = std::getenv("CONTEST_SIM_PRINT") != nullptr;
    if (print)
        std::printf(
            "design    covariate   n  false calls  (SE %.2f%%)  applied  calls of applied\n",
            100 * se);
    for (const bool paired : {true, false})
        for (const bool relevant : {false, true})
            for (int n = 3; n <= 8; ++n) {
                const Rate r = false_calls(n, relevant, paired, 1000u + 10u * n + relevant);
                if (print)
                    std::printf("%-9s %-10s %2d  %5.2f%%                   %5.1f%%  %5.2f%%\n",
                                paired ? "paired" : "unpaired",
                                relevant ? "relevant" : "irrelevant", n, 100 * r.rate(),
                                100.0 * r.applied / kRepetitions,
                                r.applied ? 100.0 * r.applied_calls / r.applied : 0.0);
                INFO((paired ? "paired, " : "unpaired, ")
                     << (relevant ? "relevant" : "irrelevant") << " covariate, " << n
                     << (paired ? " rounds" : " runs a side") << ": " << r.calls
                     << " false calls of " << kRepetitions << " (applied in " << r.applied << ", "
                     << r.applied_calls << " of them called)");
                CHECK(r.rate() <= kAlpha + 2 * se);
                // And the net calls alone, of the comparisons adjusted: the
                // decision is independent of the net test (outside_work.cpp),
                // so their rate is alpha; held to 3 SE, as 24 cells at 2 SE
                // would fail one by chance about as often as not (paired,
                // relevant, 3 rounds came out at 5.58% of 6920 here, and at
                // 4.85 to 5.13% of 13800 with four other seeds).
                if (r.applied >= 100)
                    CHECK(static_cast<double>(r.applied_calls) / r.applied <=
                          kAlpha + 3 * std::sqrt(kAlpha * (1 - kAlpha) / r.applied));
            }
}
