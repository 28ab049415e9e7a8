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

// Frame intervals in 0.1 ms buckets up to 1 s (a frame rate's 1% low needs
// no finer: 16.7 ms against 16.8 ms is 0.6%), one bucket above: 80 KB, not
// the latency histogram's 880.
inline constexpr std::int64_t kFrameBucketNs = 100'000;
inline constexpr std::size_t kFrameBuckets = 10'001;
constexpr std::size_t frame_bucket_of(std::int64_t ns) {
    if (ns <= 0) return 0;
    const auto i = static_cast<std::size_t>(ns / kFrameBucketNs);
    return i < kFrameBuckets - 1 ? i : kFrameBuckets - 1;
}

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
    // Audio and video: the time between one frame's work done and the
    // next's (a dropped frame lengthens the interval it falls in), in the
    // frame buckets above: what a game's frame times are, and its "1% low".
    std::uint64_t frames = 0;
    std::int64_t frame_sum_ns = 0;
    std::array<std::uint64_t, kFrameBuckets> frame_buckets{};

    // One wake-up's latency.
    void record(std::int64_t latency_ns);
    void record_frame(std::int64_t interval_ns);
};

}  // namespace contest::latency
