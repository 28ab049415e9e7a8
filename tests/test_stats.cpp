// Statistics against published reference values, compared at 4 significant
// digits (the precision the references are printed with).
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/multiple_comparisons.h"
#include "contest/analysis/outside_work.h"
#include "contest/analysis/stats.h"

using namespace contest::stats;

namespace {

std::string significant4(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return buf;
}

// R's `sleep` data set (Student, 1908): extra hours of sleep under two drugs.
const std::vector<double> kSleepDrug1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleepDrug2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

}  // namespace

TEST_CASE("Student t quantiles match the printed tables", "[stats]") {
    CHECK(significant4(t_quantile(0.975, 9)) == "2.262");
    CHECK(significant4(t_quantile(0.975, 4)) == "2.776");
    CHECK(significant4(t_quantile(0.975, 1)) == "12.71");
    CHECK(significant4(t_quantile(0.975, 30)) == "2.042");
    CHECK(significant4(t_quantile(0.995, 20)) == "2.845");
    CHECK(significant4(t_quantile(0.95, 7)) == "1.895");
}

TEST_CASE("summary of a small sample", "[stats]") {
    // Mean 5, sum of squared deviations 32: sample SD sqrt(32/7).
    const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
    const Summary s = summarize(x);
    CHECK(s.n == 8);
    CHECK(s.mean == Approx(5.0));
    CHECK(s.median == Approx(4.5));
    CHECK(s.min == 2);
    CHECK(s.max == 9);
    CHECK(significant4(s.sd) == "2.138");
    CHECK(significant4(s.cv) == "0.4276");
    // t(0.975, 7) = 2.365; 2.365 * 2.138 / sqrt(8) = 1.787
    CHECK(significant4(s.ci95_half) == "1.787");
}

TEST_CASE("summary of one value has no spread", "[stats]") {
    const std::vector<double> x = {461.6};
    const Summary s = summarize(x);
    CHECK(s.n == 1);
    CHECK(s.mean == Approx(461.6));
    CHECK(s.median == Approx(461.6));
    CHECK(std::isnan(s.sd));
    CHECK(std::isnan(s.ci95_half));
    CHECK(std::isnan(s.cv));
}

TEST_CASE("summary keeps its digits for large, close values", "[stats]") {
    // A naive sum-of-squares variance loses everything here.
    const std::vector<double> x = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
    CHECK(summarize(x).sd == Approx(std::sqrt(90.0 / 3)));
}

TEST_CASE("Welch's t-test on R's sleep data matches t.test's published output", "[stats]") {
    // R: t.test(extra ~ group, data = sleep)
    //   t = -1.8608, df = 17.776, p-value = 0.07939
    //   95 percent confidence interval: -3.3654832  0.2054832
    const auto r = welch_t_test(kSleepDrug1, kSleepDrug2);
    REQUIRE(r);
    CHECK(significant4(r->t) == "-1.861");
    CHECK(significant4(r->df) == "17.78");
    CHECK(significant4(r->p) == "0.07939");
    const double diff = -1.58;  // 0.75 - 2.33
    const double half = t_quantile(0.975, r->df) * (diff / r->t);
    CHECK(significant4(diff - half) == "-3.365");
    CHECK(significant4(diff + half) == "0.2055");
}

TEST_CASE("Welch's t-test is symmetric and handles zero spread", "[stats]") {
    const auto ab = welch_t_test(kSleepDrug1, kSleepDrug2);
    const auto ba = welch_t_test(kSleepDrug2, kSleepDrug1);
    REQUIRE(ab);
    REQUIRE(ba);
    CHECK(ab->t == Approx(-ba->t));
    CHECK(ab->p == Approx(ba->p));

    const std::vector<double> flat = {10, 10, 10}, other = {12, 12, 12}, one = {10};
    CHECK(welch_t_test(flat, flat)->p == 1);
    CHECK(welch_t_test(flat, other)->p == 0);
    CHECK_FALSE(welch_t_test(flat, one));
}

TEST_CASE("Mann-Whitney U on R's sleep data matches wilcox.test", "[stats]") {
    // R: wilcox.test(extra ~ group, data = sleep)  (normal approximation with
    // continuity correction, because of the ties)
    //   W = 25.5, p-value = 0.06933
    const auto r = mann_whitney_u(kSleepDrug1, kSleepDrug2);
    REQUIRE(r);
    CHECK(r->u == Approx(25.5));
    CHECK(significant4(r->p) == "0.06933");
    // U of the other side is n_a n_b - U; the p-value does not depend on the order.
    const auto swapped = mann_whitney_u(kSleepDrug2, kSleepDrug1);
    REQUIRE(swapped);
    CHECK(swapped->u == Approx(100 - 25.5));
    CHECK(swapped->p == Approx(r->p));
}

TEST_CASE("Mann-Whitney U without ties", "[stats]") {
    // Complete separation of 5 against 5: U = 0, and by the normal
    // approximation z = (0 - 12.5 + 0.5) / sqrt(25 * 11 / 12) = -2.507.
    const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
    const auto r = mann_whitney_u(a, b);
    REQUIRE(r);
    CHECK(r->u == 0);
    CHECK(significant4(r->z) == "-2.507");
    CHECK(significant4(r->p) == "0.01219");
    const std::vector<double> all_tied = {3, 3, 3};
    CHECK(mann_whitney_u(all_tied, all_tied)->p == 1);
}

TEST_CASE("Holm and Benjamini-Hochberg match R's p.adjust", "[stats]") {
    const std::vector<double> p = {0.01, 0.02, 0.03, 0.04, 0.05};
    const auto holm = contest::stats::adjust_p_values(p, contest::stats::Correction::holm);
    const std::vector<double> holm_r = {0.05, 0.08, 0.09, 0.09, 0.09};
    const auto bh = contest::stats::adjust_p_values(p, contest::stats::Correction::bh);
    for (std::size_t i = 0; i < p.size(); ++i) {
        CHECK(holm[i] == Approx(holm_r[i]));
        CHECK(bh[i] == Approx(0.05));
    }
    // Order kept, NaN not a test (the family is 2), none leaves p alone.
    const std::vector<double> mixed = {0.04, std::nan(""), 0.01};
    const auto m = contest::stats::adjust_p_values(mixed, contest::stats::Correction::holm);
    CHECK(m[0] == Approx(0.04));
    CHECK(std::isnan(m[1]));
    CHECK(m[2] == Approx(0.02));
    CHECK(contest::stats::adjust_p_values(mixed, contest::stats::Correction::none)[0] == 0.04);
}

// R: x <- c(1.83,0.50,1.62,2.48,1.68,1.88,1.55,3.06,1.30)
//    y <- c(0.878,0.647,0.598,2.05,1.06,1.29,1.06,3.14,1.29)
//    t.test(x, y, paired = TRUE): t = 3.0354, df = 8, p-value = 0.01618
//    wilcox.test(x, y, paired = TRUE): V = 40, p-value = 0.03906 (exact)
TEST_CASE("paired t and Wilcoxon signed-rank match R on Hollander and Wolfe's data", "[stats]") {
    const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
    const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
    std::vector<double> d;
    for (std::size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
    const auto t = contest::stats::one_sample_t_test(d);
    REQUIRE(t);
    CHECK(t->t == Approx(3.0354).margin(1e-4));
    CHECK(t->df == 8);
    CHECK(t->p == Approx(0.01618).margin(1e-5));
    const auto w = contest::stats::wilcoxon_signed_rank(d);
    REQUIRE(w);
    CHECK(w->exact);
    CHECK(w->v == 40);
    CHECK(w->p == Approx(0.03906).margin(1e-5));
    // A timed-out pair (+inf) ranks above all: V grows by the top rank.
    d.push_back(std::numeric_limits<double>::infinity());
    const auto censored = contest::stats::wilcoxon_signed_rank(d);
    REQUIRE(censored);
    CHECK(censored->v == 40 + 10);
    CHECK(censored->p < w->p);
}

TEST_CASE("statistics on values near the largest double never throw nor overflow", "[stats]") {
    const std::vector<double> huge = {1e308, 1.5e308, 1.2e308};
    const std::vector<double> small = {50, 51, 52};
    const auto s = contest::stats::summarize(huge);
    CHECK(std::isfinite(s.mean));
    CHECK(std::isfinite(s.sd));
    CHECK(s.mean == Approx(1.2333e308).epsilon(1e-3));
    std::optional<contest::stats::WelchResult> w;
    REQUIRE_NOTHROW(w = contest::stats::welch_t_test(huge, small));
    REQUIRE(w);
    CHECK(std::isfinite(w->t));
    CHECK(std::isfinite(w->p));
    REQUIRE_NOTHROW(contest::stats::mann_whitney_u(huge, small));
    CHECK(std::isnan(contest::stats::t_quantile(0.975, std::nan(""))));
}

TEST_CASE("spread below 1e-9 of the mean is no spread", "[stats]") {
    // 120.00 against 120.01 with rounding-level noise: no huge t from the noise.
    const std::vector<double> a = {120.0, 120.0 + 1e-12, 120.0 - 1e-12};
    const std::vector<double> b = {120.0, 120.0 + 1e-12, 120.0};
    const auto same = contest::stats::welch_t_test(a, b);
    REQUIRE(same);
    CHECK(same->p == 1);
    const std::vector<double> c = {120.01, 120.01, 120.01};
    const auto differ = contest::stats::welch_t_test(a, c);
    REQUIRE(differ);
    CHECK(differ->p == 0);  // a real, exact difference; --min-effect decides if it matters
}

TEST_CASE("outside-work adjustment: runs it cannot use are said, never computed on", "[stats]") {
    using contest::OutsidePoint;
    using contest::SignedPoint;
    const SignedPoint whole_machine[] = {{1, OutsidePoint{63, 200, {}}},
                                         {-1, OutsidePoint{60, 10, {}}}};
    CHECK_FALSE(contest::round_contrast(whole_machine, 200));
    const SignedPoint no_time[] = {{1, OutsidePoint{0, 20, {}}}, {-1, OutsidePoint{60, 10, {}}}};
    CHECK_FALSE(contest::round_contrast(no_time, 200));
    // The contrast is the signed sum of the logs; the unit only when both have one.
    const SignedPoint pair[] = {{1, OutsidePoint{66, 100, 120.0}}, {-1, OutsidePoint{60, 0, {}}}};
    const auto c = contest::round_contrast(pair, 200);
    REQUIRE(c);
    CHECK(c->log_time == Approx(std::log(1.1)));
    CHECK(c->log_left == Approx(std::log(0.5)));
    CHECK(c->outside_pct == Approx(100));
    CHECK_FALSE(c->log_unit);
    // Three rounds: the share's slope is not estimated but fixed at the
    // physics' 1, which takes this outside work out exactly.
    std::vector<contest::RoundContrast> three;
    for (double outside : {0.0, 100.0, 50.0}) {
        const double t = 66 * 200 / (200 - outside) * (outside == 50 ? 1.01 : 1);
        const SignedPoint round[] = {{1, OutsidePoint{t, outside, {}}},
                                     {-1, OutsidePoint{60, 0, {}}}};
        three.push_back(*contest::round_contrast(round, 200));
    }
    const auto f = contest::fit_paired(three);
    CHECK(f.applied);
    CHECK_FALSE(f.share_slope_estimated);
    CHECK(f.share_slope == 1);
    CHECK(f.observations == 3);
    CHECK(f.effect_pct() == Approx(10.3).margin(0.5));
    CHECK(f.explained > 0.9);
}

TEST_CASE("outside-work adjustment: without shared rounds the net test is Welch's, as the raw one",
          "[stats]") {
    using contest::OutsidePoint;
    // Two sides of unequal spread; times that follow the outside share
    // exactly as a CPU-bound workload's do, times a noise of their own.
    const double noise_base[] = {1.00, 1.01, 0.99, 1.00, 1.02};
    const double noise_new[] = {1.10, 0.90, 1.15, 0.95, 1.05};
    const double outside[] = {0, 120, 40, 150, 80};
    std::vector<OutsidePoint> base, fresh;
    std::vector<double> net_base, net_new;  // log time + log left: the share taken out at slope 1
    for (int i = 0; i < 5; ++i) {
        base.push_back({60 * 200 / (200 - outside[i]) * noise_base[i], outside[i], {}});
        fresh.push_back({60 * 200 / (200 - outside[4 - i]) * noise_new[i], outside[4 - i], {}});
        net_base.push_back(std::log(base.back().wall_s) + std::log(200 - outside[i]));
        net_new.push_back(std::log(fresh.back().wall_s) + std::log(200 - outside[4 - i]));
    }
    const auto f = contest::fit_unpaired(base, fresh, 200);
    REQUIRE(f.applied);
    CHECK_FALSE(f.share_slope_estimated);
    const auto welch = contest::stats::welch_t_test(net_new, net_base);
    REQUIRE(welch);
    // Welch-Satterthwaite's df (pooled would be 8) and its p.
    CHECK(f.df == Approx(welch->df));
    CHECK(f.df < 6);
    CHECK(f.p == Approx(welch->p));
    CHECK(f.se == Approx(welch->se));
}
