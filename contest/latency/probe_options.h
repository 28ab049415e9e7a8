#pragma once
// What a latency probe is asked to do: which probe (its entry in the probe
// table, probe_table.h; chosen by probe_choice.h), how it sleeps, at what scheduling policy, and
// where its raw samples go. The names are SPEC's option values; parse_* throw UsageError naming the
// option for anything else.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contest/sys/enum_names.h"

namespace contest::latency {

struct ProbeInfo;

// How the probe waits for its next period (stress-ng's --cyclic-method set).
enum class SleepMethod { clock_ns, posix_ns, itimer, poll };
enum class SchedPolicy { other, fifo, rr };
inline constexpr std::array<EnumName<SleepMethod>, 4> kMethods{{{SleepMethod::clock_ns, "clock_ns"},
                                                                {SleepMethod::posix_ns, "posix_ns"},
                                                                {SleepMethod::itimer, "itimer"},
                                                                {SleepMethod::poll, "poll"}}};
inline constexpr std::array<EnumName<SchedPolicy>, 3> kPolicies{
    {{SchedPolicy::other, "other"}, {SchedPolicy::fifo, "fifo"}, {SchedPolicy::rr, "rr"}}};

}  // namespace contest::latency

namespace contest {
template <>
struct JsonWords<latency::SleepMethod> {
    static constexpr const auto& names = latency::kMethods;
    static constexpr const char* what = "sleep method";
};
template <>
struct JsonWords<latency::SchedPolicy> {
    static constexpr const auto& names = latency::kPolicies;
    static constexpr const char* what = "scheduling policy";
};
}  // namespace contest

namespace contest::latency {

// The ranges the command line holds the numbers to. A wake-up below 10 us
// costs about what it measures; above 10 s a window holds too few.
inline constexpr std::int64_t kMinIntervalUs = 10, kMaxIntervalUs = 10'000'000;
// SCHED_FIFO's and SCHED_RR's priorities on Linux.
inline constexpr int kMinPriority = 1, kMaxPriority = 99;
// The distribution's bucket width: the histogram's 1 us, up to a second.
inline constexpr std::int64_t kMinDistNs = 1000, kMaxDistNs = 1'000'000'000;
// exec: a program started five times a second, by default /bin/true (small,
// dynamically linked, in every base system: what is timed is fork, exec,
// page-in and the dynamic linker, not the program's own work). A start
// that takes 100 ms or more is missed: past that a person sees the wait.
inline constexpr std::int64_t kExecPeriodNs = 200'000'000;
inline constexpr const char* kDefaultExecCommand = "/bin/true";
inline constexpr double kDefaultExecMissedMs = 100, kMinExecMissedMs = 0.001,
                        kMaxExecMissedMs = 10'000;

std::string_view name_of(SleepMethod m);
std::string_view name_of(SchedPolicy p);
SleepMethod parse_sleep_method(const std::string& s);
SchedPolicy parse_sched_policy(const std::string& s);

struct ProbeOptions {
    const ProbeInfo* probe = nullptr;    // set by make_probe_options
    std::int64_t period_ns = 1'000'000;  // cyclic: --interval-us; audio, video: their own
    double cpu_share = 0;                // fraction of a CPU of work per period (audio, video)
    SleepMethod method = SleepMethod::clock_ns;
    SchedPolicy policy = SchedPolicy::other;
    int priority = 0;  // fifo, rr: 1..99; other: unused
    // exec: the program started every period (argv[0] a path, found when the
    // options were made) and the start time from which a start is missed.
    std::vector<std::string> exec_argv;
    std::int64_t exec_missed_ns = 0;
    // Raw samples of the window, one line each, when set. The parent opens
    // it (so a bad path is a usage error before anything starts); the probe
    // writes through the inherited descriptor.
    std::optional<std::string> raw_path;
    // --latency-why: keep the window's wake-ups at least this late (0: none)
    // for the trace to say what held them.
    std::int64_t why_threshold_ns = 0;

    // The probe's: "cyclic" (defined with the table, probe_choice.cpp).
    std::string_view name() const;
};

// What the command line sets for the probes, whichever run: each probe takes
// what is its own (its entry's options: the interval is cyclic's, the
// command exec's).
struct ProbeSettings {
    std::int64_t interval_us = 1000;
    SleepMethod method = SleepMethod::clock_ns;
    SchedPolicy policy = SchedPolicy::other;
    int priority = 50;
    std::string exec_command = kDefaultExecCommand;  // split into words, no shell
    double exec_missed_ms = kDefaultExecMissedMs;
};

}  // namespace contest::latency
