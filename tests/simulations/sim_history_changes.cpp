// The history's change points (contest/analysis/change_points.h) checked
// by simulation (change_point_series.h): series of 10 to 200 kernels, three
// runs each with heavy tails, the machine's level drifting from day to day
// in each of the ways drifts() lists, with one step of 2, 5 or 10% planted
// at a random kernel, or none. What is counted: the false alarms per series
// (a change reported on a series without a step, or more than tolerance()
// kernels from the planted one, or a second one near it) and the share of
// steps found (a change reported within tolerance() of it), for contest's
// default (the drift modelled), today's method before it (the kernels taken
// as independent: drift = false) and Perfherder's rule on the same series.
// The table is printed for docs/history.md; what it states is checked.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/change_points.h"
#include "contest/analysis/perfherder_alerts.h"
#include "simulations/change_point_series.h"

using namespace contest;
using namespace contest::sim;

namespace {

// Series a cell: CONTEST_SIM_SERIES for a closer table (bench/), else what
// make test can afford.
int series_per_cell(int fallback) {
    const char* v = std::getenv("CONTEST_SIM_SERIES");
    return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

// How far from the planted step a change may be reported and still be it:
// two kernels, or a twentieth of the series (a small step's place is known
// less closely in a long series).
int tolerance(int n) {
    return std::max(2, n / 20);
}

struct Tally {
    int series = 0, steps = 0, found = 0, false_alarms = 0;
    void count(const std::vector<std::size_t>& at, int step_at, int n) {
        ++series;
        bool hit = false;
        for (std::size_t i : at) {
            if (step_at >= 0 && std::abs(int(i) - step_at) <= tolerance(n) && !hit)
                hit = true;
            else
                ++false_alarms;
        }
        if (step_at >= 0) {
            ++steps;
            found += hit;
        }
    }
    double alarms_per_series() const { return series ? double(false_alarms) / series : 0; }
    double share_found() const { return steps ? double(found) / steps : 0; }
};

std::vector<std::size_t> ours(const Planted& s, const ChangePointOptions& o) {
    std::vector<std::size_t> at;
    for (const auto& c : find_change_points(s.points, o)) at.push_back(c.index);
    return at;
}

constexpr double kSteps[] = {0.0, 0.02, 0.05, 0.10};
constexpr int kLengths[] = {10, 30, 100, 200};

// One row: a method's false alarms a quiet series and share of each step
// found, at each length.
struct Row {
    double alarms[4] = {};
    double found[4][3] = {};
};

template <typename Method>
Row row_of(const Drift& drift, Method&& method, int series, std::uint64_t seed) {
    Row row;
    for (int li = 0; li < 4; ++li) {
        const int n = kLengths[li];
        for (int si = 0; si < 4; ++si) {
            // The same series for every method: the seed is the cell's.
            std::mt19937_64 rng(seed + std::uint64_t(100 * li + si));
            Tally t;
            for (int i = 0; i < series; ++i) {
                const Planted s = draw_series(rng, drift, n, kSteps[si], 3, n - 3);
                t.count(method(s), s.step_at, n);
            }
            if (si == 0)
                row.alarms[li] = t.alarms_per_series();
            else
                row.found[li][si - 1] = t.share_found();
        }
    }
    return row;
}

void print_row(const char* drift, const char* method, const Row& r) {
    std::printf("| %-22s | %-10s |", drift, method);
    for (int li = 0; li < 4; ++li)
        std::printf(" %5.3f %4s %4s %4s |", r.alarms[li], percent(r.found[li][0]).c_str(),
                    percent(r.found[li][1]).c_str(), percent(r.found[li][2]).c_str());
    std::printf("\n");
}

}  // namespace

TEST_CASE(
    "history change points under drift: false alarms and steps found, against today's "
    "method and Perfherder's rule",
    "[simulation]") {
    const int series = series_per_cell(100);
    // Today's method before this one: the kernels independent, alpha 0.01, 1%.
    ChangePointOptions today;
    today.drift = false;
    today.alpha = 0.01;
    today.min_change = 0.01;
    const ChangePointOptions defaults;
    std::printf(
        "%d series a cell; each length: false alarms a quiet series, and the 2%%, 5%%, 10%% "
        "steps found\n| drift between kernels  | method     |"
        "  10 kernels: fa  2%%   5%%  10%% | 30 kernels | 100 kernels | 200 kernels |\n",
        series);
    std::uint64_t seed = 20261207;
    for (const Drift& d : drifts()) {
        seed += 1000;
        const Row a = row_of(
            d, [&](const Planted& s) { return ours(s, defaults); }, series, seed);
        const Row b = row_of(
            d, [&](const Planted& s) { return ours(s, today); }, series, seed);
        const Row c = row_of(
            d, [&](const Planted& s) { return perfherder_alerts(s.points); }, series, seed);
        print_row(d.name.c_str(), "default", a);
        print_row("", "before", b);
        print_row("", "Perfherder", c);
        std::fflush(stdout);
        // What docs/history.md states, row by row. Without drift and under
        // a walk of up to 0.3% a kernel or AR(1) of 0.9 at 0.5%: at most
        // 0.05 false alarms a quiet series of 10 to 200 kernels (a bad day
        // in 30 is above it: stated as it is).
        const bool stated = d.kind != Drift::outliers && !(d.kind == Drift::walk && d.sd > 0.003);
        for (int li = 0; li < 4; ++li) {
            INFO(d.name << ", " << kLengths[li] << " kernels");
            if (stated) CHECK(a.alarms[li] <= 0.05);
            // 10% steps are found in most series of 30 kernels or more, whatever the drift.
            if (kLengths[li] >= 30) CHECK(a.found[li][2] >= 0.9);
        }
        if (d.kind == Drift::independent) {
            // Today's power without drift kept: 88% of 5% steps at 30 kernels; all at 100.
            CHECK(a.found[1][1] >= 0.88);
            CHECK(a.found[2][1] >= 0.95);
        }
        if (d.kind == Drift::walk && d.sd == 0.003) {
            // What the drift did to the method before: a false alarm in more than one
            // series in ten at 100 kernels, and most 5% steps still found now.
            CHECK(b.alarms[2] > 0.1);
            CHECK(a.found[2][1] >= 0.6);
        }
        // Perfherder's rule needs 12 values either side and a t of 7: it finds fewer
        // 5% steps than the default at every length.
        for (int li = 0; li < 4; ++li) CHECK(c.found[li][1] < a.found[li][1]);
    }
}
