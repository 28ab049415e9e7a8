#pragma once
// What a probe accumulates over one window: exact count, sum, sum of squares,
// min and max beside the bucket counts, and the period bookkeeping (deadlines
// missed, periods skipped, work done). It lives in shared memory with a
// single writer (the probe); the parent reads it only after the probe has
// published that it is done with the window (ProbeShared::closed, a
// release/acquire pair), so plain fields suffice and a read is never torn.
#include <array>
#include <cstdint>
#include <limits>

#include "contest/latency/latency_buckets.h"

namespace contest::latency {

struct WindowCounts {
    std::uint64_t samples = 0;
    std::int64_t sum_ns = 0;  // 36 M samples of even 1 s each still fit
    // Exact integer sum of squares, so the standard deviation of a million
    // near-equal samples loses nothing to cancellation.
    unsigned __int128 sum_sq_ns2 = 0;
    std::int64_t min_ns = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_ns = std::numeric_limits<std::int64_t>::min();
    std::uint64_t periods = 0;      // periods whose intended wake fell in the window
    std::uint64_t missed = 0;       // of those, deadlines missed
    std::uint64_t skipped = 0;      // of the missed, periods over before the probe got to them
    std::uint64_t work_done = 0;    // work chunks done (audio, video)
    std::uint64_t work_wanted = 0;  // work chunks the periods asked for
    std::array<std::uint64_t, kBuckets> buckets{};

    // One wake-up's latency.
    void record(std::int64_t latency_ns);
};

}  // namespace contest::latency
