#pragma once
// The audio and video probes' work: a loop of integer arithmetic in chunks,
// the clock read after each chunk (so a probe sees its deadline pass within a
// chunk). How long a chunk takes is calibrated once per machine, on an idle
// machine before any load starts, and recorded beside the results: each
// period then asks for period x share / ns_per_chunk chunks.
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "contest/latency/probe_options.h"

namespace contest::latency {

inline constexpr std::uint64_t kStepsPerChunk = 8192;  // about 10 us on a 2020s core

// One chunk of work; state carries the arithmetic from chunk to chunk.
void work_chunk(std::uint64_t& state);

struct WorkCalibration {
    double ns_per_chunk = 0;  // CPU ns of one chunk and its clock read (median round)
    std::uint64_t steps_per_chunk = kStepsPerChunk;
    int rounds = 0;
    double spread_pct = 0;  // (slowest - fastest) / median of the rounds
};

// Times rounds of about 20 ms of chunks on this thread's CPU clock (so being
// preempted does not count) and keeps the median round. Takes ~0.2 s.
WorkCalibration calibrate_work();

nlohmann::json calibration_json(const WorkCalibration& c);
// The calibration a result's config recorded (--resume goes on with it, so
// every period of the file asks for the same work); nullopt when malformed.
std::optional<WorkCalibration> calibration_from_json(const nlohmann::json& j);

// Chunks one period of `o` asks for (0 for cyclic).
std::uint64_t chunks_per_period(const ProbeOptions& o, const WorkCalibration& c);

}  // namespace contest::latency
