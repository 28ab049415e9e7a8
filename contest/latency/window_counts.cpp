#include "contest/latency/window_counts.h"

#include <algorithm>

namespace contest::latency {

void WindowCounts::record(std::int64_t latency_ns) {
    ++samples;
    sum_ns += latency_ns;
    auto magnitude = static_cast<unsigned __int128>(latency_ns < 0 ? -latency_ns : latency_ns);
    sum_sq_ns2 += magnitude * magnitude;
    min_ns = std::min(min_ns, latency_ns);
    max_ns = std::max(max_ns, latency_ns);
    ++buckets[bucket_of(latency_ns)];
}

void WindowCounts::record_frame(std::int64_t interval_ns) {
    ++frames;
    frame_sum_ns += interval_ns;
    ++frame_buckets[frame_bucket_of(interval_ns)];
}

}  // namespace contest::latency
