// The history's change points (contest/analysis/change_points.h) on series
// made by hand: a planted step found at its kernel with an interval that
// holds it, nothing on a flat series, a spike of one run or a series too
// short; and Perfherder's rule, which the simulation sets beside it.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/analysis/perfherder_alerts.h"

using namespace contest;

namespace {

// Three runs a kernel around level[i], spread +-1% in a fixed pattern that
// differs from kernel to kernel (no randomness: the test is exact).
std::vector<std::vector<double>> series_of(const std::vector<double>& level) {
    std::vector<std::vector<double>> out;
    for (std::size_t i = 0; i < level.size(); ++i) {
        const double wobble = 0.004 * std::sin(double(i) * 1.7);
        out.push_back(
            {level[i] * (1 + wobble), level[i] * (1.01 + wobble), level[i] * (0.99 + wobble)});
    }
    return out;
}

std::vector<double> step_at(std::size_t n, std::size_t at, double step) {
    std::vector<double> level(n, 100.0);
    for (std::size_t i = at; i < n; ++i) level[i] *= 1 + step;
    return level;
}

}  // namespace

TEST_CASE("change points: a 10% step is found at its kernel, its interval holding it",
          "[history]") {
    const auto changes = find_change_points(series_of(step_at(16, 8, 0.10)));
    REQUIRE(changes.size() == 1);
    const ChangePoint& c = changes.front();
    CHECK(c.index == 8);
    CHECK(c.change == Approx(0.10).epsilon(0.01));
    CHECK(c.low < 0.10);
    CHECK(c.high > 0.10);
    CHECK(c.low > 0.05);
    CHECK(c.p < 0.01);
    CHECK(c.before == 8);
    CHECK(c.after == 8);
    // A slowdown the other way is a negative change.
    const auto down = find_change_points(series_of(step_at(16, 5, -0.2)));
    REQUIRE(down.size() == 1);
    CHECK(down.front().index == 5);
    CHECK(down.front().change == Approx(-0.2).epsilon(0.01));
}

TEST_CASE("change points: two steps are both found", "[history]") {
    std::vector<double> level = step_at(30, 10, 0.10);
    for (std::size_t i = 20; i < 30; ++i) level[i] *= 0.8;
    const auto changes = find_change_points(series_of(level));
    REQUIRE(changes.size() == 2);
    CHECK(changes[0].index == 10);
    CHECK(changes[1].index == 20);
}

TEST_CASE("change points: none on a flat series, a spike of one run, a step below min_change",
          "[history]") {
    CHECK(find_change_points(series_of(std::vector<double>(40, 100.0))).empty());
    auto spiked = series_of(std::vector<double>(20, 100.0));
    spiked[10][1] *= 3;  // one run met something
    CHECK(find_change_points(spiked).empty());
    // One kernel out of line is no change either: min_segment kernels a side.
    auto outlier = series_of(std::vector<double>(20, 100.0));
    for (auto& run : outlier[19]) run *= 1.5;
    CHECK(find_change_points(outlier).empty());
    ChangePointOptions o;
    o.min_change = 0.2;
    CHECK(find_change_points(series_of(step_at(16, 8, 0.10)), o).empty());
    // Too short to split with three a side.
    CHECK(find_change_points(series_of(step_at(5, 3, 0.5))).empty());
}

TEST_CASE("change points: Perfherder's rule needs 12 values either side", "[history]") {
    // One value a point, as a push with one job: windows of 12 points.
    const auto one_value_each = [](const std::vector<double>& means) {
        std::vector<std::vector<double>> points;
        for (double m : means) points.push_back({m});
        return points;
    };
    std::vector<double> means = step_at(40, 20, 0.10);
    for (std::size_t i = 0; i < means.size(); ++i) means[i] *= 1 + 0.004 * std::sin(double(i));
    const auto alerts = perfherder_alerts(one_value_each(means));
    REQUIRE(alerts.size() == 1);
    CHECK(alerts.front() == 20);
    // The same step 5 points from the end: no window of 12 after it.
    std::vector<double> late = step_at(40, 35, 0.10);
    CHECK(perfherder_alerts(one_value_each(late)).empty());
    CHECK(perfherder_alerts(one_value_each(std::vector<double>(40, 100.0))).empty());
    // Three runs a point fill the windows in 4 points: the late step is then seen.
    CHECK(perfherder_alerts(series_of(late)) == std::vector<std::size_t>{35});
    // A step of 1.5% is below Perfherder's 2%, however sure.
    CHECK(perfherder_alerts(one_value_each(step_at(40, 20, 0.015))).empty());
}

TEST_CASE("change points: a step at the head of a short track, found at once", "[history]") {
    // Issue 67's track: 5 tags, 3 runs each; every run of the last two (1508-2001) below
    // every run of the first three (2982-9806), medians 8270, 7133, 5048, 1585, 1895.
    const std::vector<std::vector<double>> track{{7000, 8270, 9806},
                                                 {5900, 7133, 8100},
                                                 {2982, 5048, 5600},
                                                 {1508, 1585, 1700},
                                                 {1800, 1895, 2001}};
    // Binary segmentation cannot split 5 points with 3 a side.
    CHECK(find_change_points(track).empty());
    const auto head = head_change(track);
    REQUIRE(head);
    CHECK(head->index == 3);
    CHECK(head->after == 2);
    CHECK(head->change < -0.6);
    CHECK(head->high < 0);
    CHECK(head->p < 0.05);
    // With only the first four it is not yet: the first three wander by 40% themselves,
    // and one point beyond them on 2 degrees of freedom is not enough.
    const std::vector<std::vector<double>> four(track.begin(), track.begin() + 4);
    CHECK_FALSE(head_change(four));
    // Nothing at the head of a flat track, nor of one too short to have a past.
    CHECK_FALSE(head_change(series_of(std::vector<double>(6, 100.0))));
    CHECK_FALSE(head_change(std::vector<std::vector<double>>(track.begin(), track.begin() + 3)));
}
