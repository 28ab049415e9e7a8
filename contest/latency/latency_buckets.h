#pragma once
// The latency histogram's bucket layout, shared by the probe (which counts
// into a fixed array in shared memory) and the report side (which rebuilds
// the same edges as a Boost.Histogram variable axis). 1 us buckets up to
// 100 ms, where nearly every wake-up of a working machine lands; 1 ms buckets
// from there to 10 s; one overflow bucket above. The array is the same size
// however long the probe runs: an hour at 10 kHz (36 M samples) costs
// exactly what a second does.
#include <cstddef>
#include <cstdint>

namespace contest::latency {

inline constexpr std::int64_t kFineWidthNs = 1'000;             // 1 us
inline constexpr std::int64_t kFineLimitNs = 100'000'000;       // 100 ms
inline constexpr std::int64_t kCoarseWidthNs = 1'000'000;       // 1 ms
inline constexpr std::int64_t kCoarseLimitNs = 10'000'000'000;  // 10 s
inline constexpr std::size_t kFineBuckets = kFineLimitNs / kFineWidthNs;
inline constexpr std::size_t kCoarseBuckets = (kCoarseLimitNs - kFineLimitNs) / kCoarseWidthNs;
// The last bucket holds everything at or above kCoarseLimitNs.
inline constexpr std::size_t kBuckets = kFineBuckets + kCoarseBuckets + 1;

// The bucket a latency falls into. Negative latencies (a clock that woke
// early, which CLOCK_MONOTONIC absolute sleeps never do) count in bucket 0;
// the exact min still shows them.
constexpr std::size_t bucket_of(std::int64_t ns) {
    if (ns < kFineLimitNs) return ns <= 0 ? 0 : static_cast<std::size_t>(ns / kFineWidthNs);
    if (ns < kCoarseLimitNs)
        return kFineBuckets + static_cast<std::size_t>((ns - kFineLimitNs) / kCoarseWidthNs);
    return kBuckets - 1;
}

// Lower edge of bucket i, in ns (bucket i covers [lower(i), lower(i + 1))).
constexpr std::int64_t bucket_lower(std::size_t i) {
    if (i < kFineBuckets) return static_cast<std::int64_t>(i) * kFineWidthNs;
    return kFineLimitNs + static_cast<std::int64_t>(i - kFineBuckets) * kCoarseWidthNs;
}

constexpr bool is_fine_bucket(std::size_t i) {
    return i < kFineBuckets;
}

static_assert(bucket_of(kFineLimitNs - 1) == kFineBuckets - 1);
static_assert(bucket_of(kFineLimitNs) == kFineBuckets);
static_assert(bucket_lower(kBuckets - 1) == kCoarseLimitNs);

}  // namespace contest::latency
