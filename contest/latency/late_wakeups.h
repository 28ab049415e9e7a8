#pragma once
// The late wake-ups of one window, kept for --latency-why to say what held
// the probe's CPU: each period the probe woke for at least `threshold_ns`
// after it should have, with when and where it ran. Fixed capacity in the
// memory the probe shares with contest (probe_shared.h: the probe the only
// writer, contest reads after `closed`); when full, a later wake-up takes
// the place of the least late one kept, so the worst are never lost.
#include <array>
#include <cstddef>
#include <cstdint>

namespace contest::latency {

struct LateWakeup {
    std::int64_t intended_ns = 0;  // CLOCK_MONOTONIC: when it should have woken
    std::int64_t woke_ns = 0;      // when it read the clock after the wake
    std::int32_t cpu = -1;         // the CPU it woke on
    std::int32_t pid = 0;          // the probe's thread
    std::int64_t late_ns() const { return woke_ns - intended_ns; }
};

inline constexpr std::size_t kMaxLateWakeups = 2048;

struct LateWakeups {
    std::int64_t threshold_ns = 0;  // 0: not kept (no --latency-why)
    std::uint64_t seen = 0;         // late wake-ups in the window, kept or not
    std::size_t kept = 0;
    std::array<LateWakeup, kMaxLateWakeups> items{};

    void add(const LateWakeup& w);
};

}  // namespace contest::latency
