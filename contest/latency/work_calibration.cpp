#include "contest/latency/work_calibration.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "contest/latency/probe_sleeper.h"

namespace contest::latency {

namespace {

std::int64_t thread_cpu_ns() {
    timespec ts;
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// ns of CPU per chunk over `chunks` chunks, each followed by the clock read
// the probe does.
double time_chunks(std::uint64_t chunks, std::uint64_t& state) {
    std::int64_t start = thread_cpu_ns();
    std::int64_t sink = 0;
    for (std::uint64_t i = 0; i < chunks; ++i) {
        work_chunk(state);
        sink += monotonic_ns() & 1;
    }
    asm volatile("" : : "r"(sink));
    return static_cast<double>(thread_cpu_ns() - start) / static_cast<double>(chunks);
}

}  // namespace

void work_chunk(std::uint64_t& state) {
    std::uint64_t x = state;
    for (std::uint64_t i = 0; i < kStepsPerChunk; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        asm volatile("" : "+r"(x));  // keeps the loop from being folded away
    }
    state = x;
}

WorkCalibration calibrate_work() {
    std::uint64_t state = 1;
    // Size a round to about 20 ms from a first short guess.
    double guess = time_chunks(64, state);
    auto chunks = static_cast<std::uint64_t>(std::max(1.0, 20e6 / std::max(guess, 1.0)));
    std::vector<double> rounds;
    for (int i = 0; i < 7; ++i) rounds.push_back(time_chunks(chunks, state));
    std::sort(rounds.begin(), rounds.end());
    WorkCalibration c;
    c.rounds = static_cast<int>(rounds.size());
    c.ns_per_chunk = rounds[rounds.size() / 2];
    c.spread_pct = 100.0 * (rounds.back() - rounds.front()) / c.ns_per_chunk;
    return c;
}

nlohmann::json calibration_json(const WorkCalibration& c) {
    return {{"ns_per_chunk", c.ns_per_chunk},
            {"steps_per_chunk", c.steps_per_chunk},
            {"rounds", c.rounds},
            {"spread_pct", c.spread_pct}};
}

std::optional<WorkCalibration> calibration_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("ns_per_chunk") || !j["ns_per_chunk"].is_number() ||
        !j.contains("steps_per_chunk") || !j["steps_per_chunk"].is_number_unsigned())
        return std::nullopt;
    WorkCalibration c;
    c.ns_per_chunk = j["ns_per_chunk"].get<double>();
    c.steps_per_chunk = j["steps_per_chunk"].get<std::uint64_t>();
    // Another chunk size is other work: the recorded rate does not apply.
    if (!(c.ns_per_chunk > 0) || c.steps_per_chunk != kStepsPerChunk) return std::nullopt;
    c.rounds = j.value("rounds", 0);
    c.spread_pct = j.value("spread_pct", 0.0);
    return c;
}

std::uint64_t chunks_per_period(const ProbeOptions& o, const WorkCalibration& c) {
    if (o.cpu_share <= 0 || c.ns_per_chunk <= 0) return 0;
    return static_cast<std::uint64_t>(
        std::max(1.0, std::round(static_cast<double>(o.period_ns) * o.cpu_share / c.ns_per_chunk)));
}

}  // namespace contest::latency
