// Each level's noise (contest/analysis/level_noise.h, issue 59): the spread
// between boots and within one, by one-way random-effects ANOVA, and the
// runs a boot that buy the narrowest mean for the time (Kalibera & Jones).
// Checked on sums done by hand, on planted variances recovered over many
// seeds, and on the advice's design against every other by simulation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/level_noise.h"
#include "report_fixtures.h"

using namespace contest;
using report_test::normal_sample;

namespace {

// n_boots boots of runs_each runs: boot effects of SD sd_between, runs
// about them of SD sd_within.
std::vector<std::vector<double>> planted(std::mt19937& gen, int n_boots,
                                         const std::vector<int>& runs_each, double sd_between,
                                         double sd_within) {
    std::vector<std::vector<double>> boots;
    const auto effects = normal_sample(gen, 100, sd_between, n_boots);
    for (int i = 0; i < n_boots; ++i)
        boots.push_back(normal_sample(gen, effects[static_cast<std::size_t>(i)], sd_within,
                                      runs_each[static_cast<std::size_t>(i) % runs_each.size()]));
    return boots;
}

struct Recovered {
    double between = 0, within = 0;  // the estimates' means
    // The median of the seeds' between-boot shares: the share is a ratio of
    // the estimates, and its mean over few boots lies below the planted one
    // (with 8 boots of 5, 0.76 for a planted 0.8).
    double share = 0;
};

Recovered mean_over_seeds(int seeds, int n_boots, const std::vector<int>& runs_each,
                          double sd_between, double sd_within) {
    Recovered sum;
    std::vector<double> shares;
    for (int seed = 1; seed <= seeds; ++seed) {
        std::mt19937 gen(static_cast<unsigned>(seed));
        const auto v = boot_run_variances(planted(gen, n_boots, runs_each, sd_between, sd_within));
        REQUIRE(v);
        sum.between += v->between_boot;
        sum.within += v->within_boot;
        shares.push_back(v->between_share());
    }
    sum.between /= seeds;
    sum.within /= seeds;
    std::sort(shares.begin(), shares.end());
    sum.share = shares[shares.size() / 2];
    if (std::getenv("CONTEST_SIM_PRINT"))
        std::cout << "planted between " << sd_between * sd_between << " within "
                  << sd_within * sd_within << " (" << n_boots << " boots): recovered between "
                  << sum.between << " within " << sum.within << " median share " << sum.share
                  << " over " << seeds << " seeds\n";
    return sum;
}

}  // namespace

TEST_CASE("level noise: the ANOVA's components as done by hand", "[level-noise]") {
    // Boot means 2 and 6 about 4: MSB = 16, MSW = 2, n0 = 2.
    const auto v = boot_run_variances({{1, 3}, {5, 7}});
    REQUIRE(v);
    CHECK(v->boots == 2);
    CHECK(v->runs == 4);
    CHECK(v->mean == Approx(4));
    CHECK(v->within_boot == Approx(2));
    CHECK(v->between_boot == Approx(7));
    CHECK(v->f == Approx(8));
    CHECK(v->between_share() == Approx(7.0 / 9));
    CHECK(v->p > 0);
    CHECK(v->p < 0.2);

    // Unbalanced: boots {1,3,5} and {8}: MSB = 18.75, MSW = 4, n0 = 1.5.
    const auto u = boot_run_variances({{1, 3, 5}, {8}});
    REQUIRE(u);
    CHECK(u->within_boot == Approx(4));
    CHECK(u->between_boot == Approx((18.75 - 4) / 1.5));

    // Boots closer than their runs say: no spread of their own (truncated at 0).
    const auto none = boot_run_variances({{1, 9}, {4, 6}, {2, 8}});
    REQUIRE(none);
    CHECK(none->between_boot == 0);
    CHECK(none->between_share() == 0);

    // What cannot be told apart: one boot, or one run a boot.
    CHECK_FALSE(boot_run_variances({{1, 2, 3}}));
    CHECK_FALSE(boot_run_variances({{1}, {2}, {3}}));
    CHECK_FALSE(boot_run_variances({}));
    // A non-finite figure is left out, not averaged in.
    const auto nan = boot_run_variances({{1, 3, std::nan("")}, {5, 7}});
    REQUIRE(nan);
    CHECK(nan->runs == 4);
    CHECK(nan->between_boot == Approx(7));
}

TEST_CASE("level noise: planted variances recovered over 2000 seeds", "[level-noise]") {
    SECTION("boots 4, runs 1: 8 boots of 5") {
        const Recovered r = mean_over_seeds(2000, 8, {5}, 2, 1);
        CHECK(r.between == Approx(4).epsilon(0.05));
        CHECK(r.within == Approx(1).epsilon(0.02));
        CHECK(r.share == Approx(0.8).epsilon(0.05));
    }
    SECTION("boots 0.25, runs 1: 10 boots of 4 (little between; truncation biases it up)") {
        const Recovered r = mean_over_seeds(2000, 10, {4}, 0.5, 1);
        CHECK(r.between == Approx(0.25).epsilon(0.15));
        CHECK(r.within == Approx(1).epsilon(0.02));
    }
    SECTION("unbalanced boots of 2 to 6 runs: boots 1, runs 2") {
        const Recovered r = mean_over_seeds(2000, 12, {2, 6, 3, 5}, 1, std::sqrt(2.0));
        CHECK(r.between == Approx(1).epsilon(0.05));
        CHECK(r.within == Approx(2).epsilon(0.02));
    }
    SECTION("no boot effect: between near 0, within recovered") {
        const Recovered r = mean_over_seeds(2000, 8, {5}, 0, 1);
        CHECK(r.between < 0.05);
        CHECK(r.within == Approx(1).epsilon(0.02));
    }
}

TEST_CASE("level noise: runs a boot as Kalibera and Jones derive them", "[level-noise]") {
    LevelVariances v;
    v.between_boot = 1;
    v.within_boot = 4;
    // sqrt((25 / 1) * (4 / 1)) = 10, a whole number.
    const auto ten = advise_runs_per_boot(v, {25, 1});
    CHECK(ten.optimum == Approx(10));
    CHECK(ten.runs_per_boot == 10);
    CHECK_FALSE(ten.at_cap);

    // The count is the cheapest whole one for a given precision, by brute force.
    for (const double boot_s : {0.5, 3.0, 10.0, 40.0})
        for (const double within : {0.1, 1.0, 7.0}) {
            v.within_boot = within;
            const LevelCosts costs{boot_s, 1.3};
            const auto advice = advise_runs_per_boot(v, costs);
            INFO("boot " << boot_s << " s, within " << within);
            for (unsigned n = 1; n <= kRunsPerBootCap; ++n)
                CHECK(two_level_cost(v, costs, advice.runs_per_boot) <=
                      two_level_cost(v, costs, n) * (1 + 1e-12));
        }

    // Boots with no spread of their own: the runs buy everything, at the cap.
    v.between_boot = 0;
    v.within_boot = 1;
    const auto capped = advise_runs_per_boot(v, {10, 1});
    CHECK(capped.at_cap);
    CHECK(capped.runs_per_boot == kRunsPerBootCap);
    // Runs that do not vary within a boot: a run a boot.
    v.between_boot = 1;
    v.within_boot = 0;
    CHECK(advise_runs_per_boot(v, {10, 1}).runs_per_boot == 1);
}

TEST_CASE(
    "level noise: at equal time, the advised runs a boot give the narrowest mean, by simulation",
    "[level-noise]") {
    // Boots of SD 1, runs of SD 2; a boot costs 25 s, a run 1 s; 1000 s.
    // Advised: 10 runs a boot (28 boots), against 1 (38 boots) and 40 (15).
    LevelVariances truth;
    truth.between_boot = 1;
    truth.within_boot = 4;
    const LevelCosts costs{25, 1};
    const unsigned advised = advise_runs_per_boot(truth, costs).runs_per_boot;
    REQUIRE(advised == 10);
    auto spread_of_mean = [&](unsigned per_boot) {
        const int boots = static_cast<int>(1000 / (costs.boot_s + per_boot * costs.run_s));
        std::vector<double> means;
        for (int seed = 1; seed <= 2000; ++seed) {
            std::mt19937 gen(static_cast<unsigned>(seed) * 7919u + per_boot);
            double sum = 0;
            int n = 0;
            for (const auto& boot : planted(gen, boots, {static_cast<int>(per_boot)}, 1, 2))
                for (const double y : boot) {
                    sum += y;
                    ++n;
                }
            means.push_back(sum / n);
        }
        double m = 0, ss = 0;
        for (const double x : means) m += x;
        m /= static_cast<double>(means.size());
        for (const double x : means) ss += (x - m) * (x - m);
        const double var = ss / static_cast<double>(means.size() - 1);
        // The model's variance of the mean, which the simulation must match.
        const double model = (1.0 + 4.0 / per_boot) / boots;
        if (std::getenv("CONTEST_SIM_PRINT"))
            std::cout << per_boot << " runs a boot, " << boots << " boots: var of the mean " << var
                      << " (model " << model << ")\n";
        CHECK(var == Approx(model).epsilon(0.1));
        return var;
    };
    const double at_advised = spread_of_mean(advised);
    CHECK(at_advised < spread_of_mean(1));
    CHECK(at_advised < spread_of_mean(40));
}

TEST_CASE("level noise from result files: a note per label and load, costs read as untrusted",
          "[level-noise][report]") {
    ResultFile f;
    f.label = "a";
    std::mt19937 gen(3);
    const auto boots = planted(gen, 4, {3}, 2, 0.5);
    for (int b = 0; b < 4; ++b)
        for (int k = 0; k < 3; ++k) {
            RunRecord r;
            r.load = "cpu_load";
            r.boot = b + 1;
            r.run_in_boot = k + 1;
            r.index = r.round = b * 3 + k + 1;
            r.wall_s = boots[static_cast<std::size_t>(b)][static_cast<std::size_t>(k)];
            r.load_unit = "M loops";
            r.load_units = 50 + k;  // within-boot spread only
            f.runs.push_back(r);
        }
    f.config = {{"vm",
                 {{"runs_per_boot", 3},
                  {"boots",
                   {{{"round", 1}, {"up_s", 10.0}, {"total_s", 40.0}},
                    {{"round", 2}, {"up_s", 12.0}, {"total_s", 42.0}},
                    // Untrusted: wrong types, a time before the boot, none.
                    {{"round", 3}, {"up_s", "11"}, {"total_s", 40.0}},
                    {{"round", 4}, {"up_s", 20.0}, {"total_s", 5.0}},
                    "junk"}}}}};
    const auto costs = level_costs_of({f}, "a");
    REQUIRE(costs);
    CHECK(costs->boot_s == Approx(11));
    CHECK(costs->run_s == Approx(10));
    CHECK_FALSE(level_costs_of({f}, "b"));

    const auto noise = level_noise_of({f});
    REQUIRE(noise.size() == 2);
    CHECK(noise[0].measure == "Time");
    CHECK(noise[0].variances.boots == 4);
    CHECK(noise[0].variances.between_share() > 0.5);
    CHECK(noise[1].measure == "Loads");
    CHECK(noise[1].variances.between_boot == 0);
    CHECK(noise[1].variances.within_boot == Approx(1));

    // Two files of the label (two runs): their boots 1 to 4 are 8 boots.
    CHECK(level_noise_of({f, f}).at(0).variances.boots == 8);

    ReportModel model;
    note_level_noise({f}, model);
    REQUIRE(model.notes.size() == 1);
    const std::string& note = model.notes.front();
    INFO(note);
    CHECK_THAT(note, Catch::StartsWith("a, cpu_load: noise by level (4 boots, 12 runs"));
    CHECK_THAT(note, Catch::Contains("Loads 0% between boots"));
    CHECK_THAT(note, Catch::Contains("A boot costs 11.0 s, a run 10.0 s"));
    CHECK_THAT(note, Catch::Contains("(Kalibera & Jones; --runs-per-boot): Time "));
    CHECK_THAT(note, Catch::EndsWith(", Loads " + std::to_string(kRunsPerBootCap) +
                                     " or more (its boots add no spread of their own)."));

    // The same figures as fields (report/compare --format json), row by row.
    REQUIRE(model.level_noise.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
        const LevelNoiseRow& row = model.level_noise[k];
        const LevelVariances& v = noise[k].variances;
        INFO(row.measure);
        CHECK(row.label == "a");
        CHECK(row.load == "cpu_load");
        CHECK(row.measure == noise[k].measure);
        CHECK(row.boots == 4);
        CHECK(row.runs == 12);
        CHECK(row.between_boot_variance == v.between_boot);
        CHECK(row.within_boot_variance == v.within_boot);
        CHECK(row.between_share == v.between_share());
        REQUIRE(row.boot_s);
        CHECK(*row.boot_s == Approx(11));
        CHECK(*row.run_s == Approx(10));
        REQUIRE(row.advised_runs_per_boot);
        CHECK(*row.advised_runs_per_boot == advise_runs_per_boot(v, *costs).runs_per_boot);
    }
    CHECK(model.level_noise[1].advice_at_cap);
    CHECK(*model.level_noise[1].advised_runs_per_boot == kRunsPerBootCap);

    // One run a boot (as every run before --runs-per-boot): no note, no row.
    ResultFile one = f;
    for (auto& r : one.runs) r.boot = r.round;
    ReportModel quiet;
    note_level_noise({one}, quiet);
    CHECK(quiet.notes.empty());
    CHECK(quiet.level_noise.empty());
}

namespace {

// Two guest labels of one run (one --kernel group), `rounds` rounds of
// no_load each: log Time = 3 + the round's shared drift (SD shared_sd) + each
// guest's own noise (SD own_sd).
std::vector<ResultFile> shared_drift_files(std::mt19937& gen, int rounds, double shared_sd,
                                           double own_sd) {
    std::normal_distribution<double> shared(0, shared_sd), own(0, own_sd);
    std::vector<ResultFile> files(2);
    for (std::size_t l = 0; l < 2; ++l) {
        files[l].label = l == 0 ? "a" : "b";
        files[l].started_at = l == 0 ? "2026-12-06T00:00:00Z" : "2026-12-06T00:00:01Z";
        files[l].config = {{"vary", {{"group", "g"}}}};
    }
    for (int i = 1; i <= rounds; ++i) {
        const double drift = shared(gen);
        for (auto& f : files) {
            RunRecord r;
            r.load = "no_load";
            r.index = r.round = r.boot = i;
            r.run_in_boot = 1;
            r.wall_s = std::exp(3 + drift + own(gen));
            f.runs.push_back(r);
        }
    }
    return files;
}

}  // namespace

TEST_CASE("the rounds' shared noise: what the pairs by round cancel, recovered and said",
          "[level-noise][report]") {
    std::mt19937 gen(11);
    // Shared variance 4 x own: 80% of each label's spread is the round's.
    double sum = 0;
    const int seeds = 200;
    for (int s = 0; s < seeds; ++s) {
        ReportModel model = build_report_model(shared_drift_files(gen, 30, 0.2, 0.1), {});
        REQUIRE(model.shared_noise.size() == 1);
        sum += model.shared_noise.front().shared_share;
    }
    CHECK(sum / seeds == Approx(0.8).margin(0.03));

    ReportModel model = build_report_model(shared_drift_files(gen, 30, 0.2, 0.1), {});
    const SharedNoiseRow& row = model.shared_noise.front();
    CHECK(row.label == "b");
    CHECK(row.baseline == "a");
    CHECK(row.measure == "Time");
    CHECK(row.pairs == 30);
    CHECK(row.difference_variance < row.label_variance);
    const auto said = std::count_if(model.notes.begin(), model.notes.end(), [](const auto& n) {
        return n.starts_with("b against a, no_load: the rounds' shared noise (30 rounds;");
    });
    CHECK(said == 1);

    // Rounds that do not go together (no shared drift): about none shared.
    sum = 0;
    for (int s = 0; s < seeds; ++s)
        sum += build_report_model(shared_drift_files(gen, 30, 0, 0.1), {})
                   .shared_noise.front()
                   .shared_share;
    CHECK(sum / seeds < 0.1);

    // Files of separate runs (no group): their rounds are not pairs, nothing said.
    auto apart = shared_drift_files(gen, 30, 0.2, 0.1);
    for (auto& f : apart) f.config = nlohmann::json::object();
    CHECK(build_report_model(apart, {}).shared_noise.empty());
    // Host runs (no boot recorded): nothing said.
    auto host = shared_drift_files(gen, 30, 0.2, 0.1);
    for (auto& f : host)
        for (auto& r : f.runs) r.boot = 0;
    CHECK(build_report_model(host, {}).shared_noise.empty());
}
