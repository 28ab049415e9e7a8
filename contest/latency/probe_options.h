#pragma once
// What a latency probe is asked to do: which probe, how it sleeps, at what
// scheduling policy, and where its raw samples go. The names are SPEC's
// option values; parse_* throw UsageError naming the option for anything else.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace contest::latency {

enum class ProbeKind { cyclic, audio, video };
// How the probe waits for its next period (stress-ng's --cyclic-method set).
enum class SleepMethod { clock_ns, posix_ns, itimer, poll };
enum class SchedPolicy { other, fifo, rr };

// The ranges the command line holds the numbers to. A wake-up below 10 us
// costs about what it measures; above 10 s a window holds too few.
inline constexpr std::int64_t kMinIntervalUs = 10, kMaxIntervalUs = 10'000'000;
// SCHED_FIFO's and SCHED_RR's priorities on Linux.
inline constexpr int kMinPriority = 1, kMaxPriority = 99;
// The distribution's bucket width: the histogram's 1 us, up to a second.
inline constexpr std::int64_t kMinDistNs = 1000, kMaxDistNs = 1'000'000'000;

std::string_view name_of(ProbeKind k);
std::string_view name_of(SleepMethod m);
std::string_view name_of(SchedPolicy p);
ProbeKind parse_probe_kind(const std::string& s);
SleepMethod parse_sleep_method(const std::string& s);
SchedPolicy parse_sched_policy(const std::string& s);

struct ProbeOptions {
    ProbeKind kind = ProbeKind::cyclic;
    std::int64_t period_ns = 1'000'000;  // cyclic: --interval-us; audio, video: their own
    double cpu_share = 0;                // fraction of a CPU of work per period (audio, video)
    SleepMethod method = SleepMethod::clock_ns;
    SchedPolicy policy = SchedPolicy::other;
    int priority = 0;  // fifo, rr: 1..99; other: unused
    // Raw samples of the window, one line each, when set. The parent opens
    // it (so a bad path is a usage error before anything starts); the probe
    // writes through the inherited descriptor.
    std::optional<std::string> raw_path;
};

// The probe's options with the period and share of its kind: cyclic wakes
// every interval_us; audio is interbench's (50 ms, 5% of a CPU), video too
// (16.7 ms, 40%). Throws UsageError for a bad interval, or a priority out of
// the policy's range.
ProbeOptions make_probe_options(ProbeKind kind, std::int64_t interval_us, SleepMethod method,
                                SchedPolicy policy, int priority);

// `contest run --latency PROBES`'s list ("cyclic", "audio,video"): one
// options set per probe, each named once; the other settings as above.
// Throws UsageError naming --latency for an empty or repeated name.
std::vector<ProbeOptions> make_probe_list(const std::string& probes, std::int64_t interval_us,
                                          SleepMethod method, SchedPolicy policy, int priority);

}  // namespace contest::latency
