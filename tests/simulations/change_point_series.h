#pragma once
// Simulated kernel series for the change points' simulations
// (sim_history_changes.cpp, sim_history_head.cpp): three runs a kernel
// with the spread contest measures (3% with heavy tails, Student's t with
// 3 degrees of freedom) about the machine's level that day, which follows
// one of the drifts below, and a step planted at a random kernel, or none.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace contest::sim {

inline constexpr int kRuns = 3;
inline constexpr double kRunSd = 0.03;

// How the machine's level moves from one kernel's day to the next.
struct Drift {
    std::string name;
    enum Kind { independent, heavy_tailed, outliers, walk, ar1 } kind = independent;
    double sd = 0.01;  // of the independent draw, or of the walk's or AR(1)'s step
    double phi = 0;    // AR(1)'s
};

// Today's simulation (an independent 1% a day); heavy-tailed days (t(3)
// scaled to 1%); one bad day in 30 (a kernel 10-20% slower, all its runs);
// random walks of 0.1-0.5% a kernel; AR(1) of phi 0.9 with 0.5% steps.
inline std::vector<Drift> drifts() {
    return {{"independent 1%", Drift::independent, 0.01},
            {"heavy-tailed 1%, t(3)", Drift::heavy_tailed, 0.01},
            {"1% + a bad day in 30", Drift::outliers, 0.01},
            {"random walk 0.1%", Drift::walk, 0.001},
            {"random walk 0.3%", Drift::walk, 0.003},
            {"random walk 0.5%", Drift::walk, 0.005},
            {"AR(1) 0.9, 0.5%", Drift::ar1, 0.005, 0.9}};
}

// The machine's log-level at each of n kernels.
inline std::vector<double> machine_levels(std::mt19937_64& rng, const Drift& d, int n) {
    std::normal_distribution<double> normal(0, 1);
    std::student_t_distribution<double> tail(3);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> out;
    double x = 0;
    // AR(1) starts in its stationary spread.
    if (d.kind == Drift::ar1) x = d.sd / std::sqrt(1 - d.phi * d.phi) * normal(rng);
    for (int i = 0; i < n; ++i) {
        switch (d.kind) {
            case Drift::independent:
                out.push_back(d.sd * normal(rng));
                break;
            case Drift::heavy_tailed:
                out.push_back(d.sd * tail(rng) / std::sqrt(3.0));
                break;
            case Drift::outliers:
                out.push_back(d.sd * normal(rng) +
                              (unit(rng) < 1.0 / 30 ? std::log1p(0.1 + 0.1 * unit(rng)) : 0));
                break;
            case Drift::walk:
                if (i > 0) x += d.sd * normal(rng);
                out.push_back(x);
                break;
            case Drift::ar1:
                if (i > 0) x = d.phi * x + d.sd * normal(rng);
                out.push_back(x);
                break;
        }
    }
    return out;
}

struct Planted {
    std::vector<std::vector<double>> points;
    int step_at = -1;  // the first kernel after the step; -1 without one
};

// A series of n kernels with a step of `step` planted at a kernel drawn
// from [first, last] (none when step is 0).
inline Planted draw_series(std::mt19937_64& rng, const Drift& d, int n, double step, int first,
                           int last) {
    std::student_t_distribution<double> tail(3);
    Planted s;
    if (step != 0) s.step_at = std::uniform_int_distribution<int>(first, last)(rng);
    const std::vector<double> machine = machine_levels(rng, d, n);
    for (int i = 0; i < n; ++i) {
        const double level = std::log(100.0) + machine[std::size_t(i)] +
                             (s.step_at >= 0 && i >= s.step_at ? std::log1p(step) : 0);
        std::vector<double> runs;
        // t(3) has variance 3: scaled to kRunSd.
        for (int r = 0; r < kRuns; ++r)
            runs.push_back(std::exp(level + kRunSd * tail(rng) / std::sqrt(3.0)));
        s.points.push_back(std::move(runs));
    }
    return s;
}

inline std::string percent(double share) {
    return std::to_string(int(std::lround(100 * share))) + "%";
}

}  // namespace contest::sim
