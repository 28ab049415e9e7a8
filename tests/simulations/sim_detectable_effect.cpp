// The minimum detectable effect a comparison states, checked by simulation:
// runs drawn with a known spread, and a true effect of the size the code
// says these runs could see, are called different about 4 times in 5.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/ratio.h"
#include "contest/analysis/stats.h"
#include "report_fixtures.h"

using namespace contest;

using namespace contest::report_test;

namespace {

constexpr int kRepetitions = 400;

ReportModel model_of(const std::vector<ResultFile>& files) {
    ModelOptions options;
    options.baseline = "base";
    return build_report_model(files, options);
}

const Test& time_test_of(const ReportModel& model) {
    const Cell* cell = model.find_cell("no_load", "new");
    REQUIRE(cell);
    REQUIRE(cell->versus);
    REQUIRE(cell->versus->time_test);
    return *cell->versus->time_test;
}

// Two labels' no_load times; paired: both ran in the rounds of one --vary
// run, each round's machine drift shared by both.
std::vector<ResultFile> draw(std::mt19937& gen, int runs, double effect_pct, double sd_pct,
                             bool paired) {
    constexpr double kMean = 50;
    auto base_times = report_test::normal_sample(gen, 0, sd_pct / 100, runs);
    auto new_times = report_test::normal_sample(gen, 0, sd_pct / 100, runs);
    const auto drift = report_test::normal_sample(gen, 0, paired ? 0.05 : 0, runs);
    for (int i = 0; i < runs; ++i) {
        base_times[i] = kMean * std::exp(drift[i] + base_times[i]);
        new_times[i] = kMean * (1 + effect_pct / 100) * std::exp(drift[i] + new_times[i]);
    }
    std::vector<ResultFile> files = {report_test::make_result("base", {{"no_load", base_times}}),
                                     report_test::make_result("new", {{"no_load", new_times}})};
    if (paired)
        for (auto& f : files) {
            f.config = {{"order", "shuffled"}, {"vary", {{"group", "g1"}}}};
            for (auto& r : f.runs) r.round = r.index;
        }
    return files;
}

struct Simulated {
    double called = 0;      // share of repetitions where Time was called different
    double median_mde = 0;  // of the effects the code stated, from each draw's own spread
};

Simulated simulate(std::mt19937& gen, int runs, double effect_pct, double sd_pct, bool paired) {
    int called = 0;
    std::vector<double> stated;
    for (int i = 0; i < kRepetitions; ++i) {
        const ReportModel model = model_of(draw(gen, runs, effect_pct, sd_pct, paired));
        const Test& t = time_test_of(model);
        called += t.significant;
        stated.push_back(t.mde_pct);
    }
    std::sort(stated.begin(), stated.end());
    return {static_cast<double>(called) / kRepetitions, stated[stated.size() / 2]};
}

}  // namespace

TEST_CASE("the shift a t-test finds 4 times in 5 matches the power tables", "[stats][mde]") {
    // Large df: the normal's z(0.975) + z(0.8) = 1.960 + 0.842.
    CHECK(stats::detectable_shift_in_se(1e6, 0.05, 0.8) == Approx(2.8016).epsilon(0.002));
    // R: power.t.test(n = 10, power = 0.8, type = "one.sample", strict = TRUE)
    // gives delta 0.9940 sd, i.e. 0.9940 * sqrt(10) standard errors.
    CHECK(stats::detectable_shift_in_se(9, 0.05, 0.8) ==
          Approx(0.9940 * std::sqrt(10.0)).epsilon(0.005));
    // A stricter level needs a larger shift; one degree of freedom at a
    // tiny level needs more than any run could give.
    CHECK(stats::detectable_shift_in_se(9, 0.005, 0.8) >
          stats::detectable_shift_in_se(9, 0.05, 0.8));
    CHECK(std::isnan(stats::detectable_shift_in_se(0, 0.05, 0.8)));
}

TEST_CASE("the stated minimum detectable effect is found about 4 times in 5", "[compare][mde]") {
    std::mt19937 gen(20261201);
    for (const bool paired : {true, false}) {
        const int runs = paired ? 8 : 6;
        const double sd_pct = 2;
        // What the code states for runs whose spread is exactly the true one:
        // the paired test's differences spread by sqrt(2) sd, Welch's
        // difference of means by sqrt(2 / runs) sd.
        Resolution truth;
        truth.se = sd_pct / 100 * std::sqrt(2.0 / runs);
        truth.df = paired ? runs - 1 : 2 * (runs - 1);
        truth.log_scale = true;
        const double true_mde = detectable_effect_pct(truth, 0.05);
        INFO((paired ? "paired" : "unpaired") << ": MDE " << true_mde << "%");
        REQUIRE(true_mde > 1);  // above --min-effect, which would floor it

        const Simulated at_mde = simulate(gen, runs, true_mde, sd_pct, paired);
        INFO("called " << at_mde.called << ", median stated MDE " << at_mde.median_mde);
        CHECK(at_mde.called > 0.70);
        CHECK(at_mde.called < 0.90);
        // Each draw states it from its own spread: about the true one.
        CHECK(at_mde.median_mde > true_mde * 0.8);
        CHECK(at_mde.median_mde < true_mde * 1.25);

        // And without an effect, the false alarms stay at the level.
        const Simulated none = simulate(gen, runs, 0, sd_pct, paired);
        CHECK(none.called < 0.10);
    }
}

TEST_CASE("a paired comparison says what it could see beside no difference", "[compare][mde]") {
    std::mt19937 gen(7);
    const ReportModel model = model_of(draw(gen, 6, 0, 2, true));
    const Test& t = time_test_of(model);
    REQUIRE_FALSE(t.significant);
    CHECK(t.mde_level == Approx(0.05));
    CHECK(t.mde_pct > 1);
    CHECK(t.mde_pct < 20);
}

TEST_CASE("the MDE --runs auto aims at is what the runs could see (not floored at --min-effect)",
          "[compare][mde]") {
    // Paired runs with little spread: they could see far less than the 1%
    // below which compare calls nothing, and --runs auto is told that.
    std::mt19937 gen(11);
    const std::vector<ResultFile> files = draw(gen, 8, 0, 0.1, true);
    const ReportModel model = model_of(files);
    const Test& t = time_test_of(model);
    REQUIRE(t.resolution);
    const double could_see = detectable_effect_pct(*t.resolution, t.mde_level);
    INFO("could see " << could_see << "%, compare states " << t.mde_pct << "%");
    REQUIRE(could_see < 0.5);
    CHECK(t.mde_pct == Approx(1));  // compare, at its --min-effect of 1
    CHECK(widest_time_mde_pct(files) == Approx(could_see));
}
