#pragma once
// What the tests of the tracing instance and of the late wake-ups' causes
// share: the monotonic clock, pinning to a CPU, which CPU they trace, and
// the paths they check on tracefs.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "contest/observe/trace_instance.h"
#include "contest/sys/text_file.h"

namespace contest::test {

inline constexpr std::int64_t kMs = 1'000'000;

inline std::int64_t monotonic_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

inline timespec as_timespec(std::int64_t ns) {
    return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

inline void sleep_until_ns(std::int64_t ns) {
    const timespec ts = as_timespec(ns);
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

inline bool pin_to(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return ::sched_setaffinity(0, sizeof set, &set) == 0;
}

// The highest CPU this process may run on: the one the real cases trace.
inline int traced_cpu() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu)
        if (CPU_ISSET(cpu, &set)) return cpu;
    return 0;
}

inline TraceInstanceOptions options_at(const std::string& root) {
    TraceInstanceOptions options;
    options.tracefs_root = root;
    return options;
}

inline std::string instance_path(const std::string& root) {
    return root + "/instances/" + trace_instance_name(::getpid());
}

// The global buffer's first line ("# tracer: nop"), to see it not touched.
inline std::string global_trace_head(const std::string& root) {
    return read_first_line(root + "/trace").value_or("(unreadable)");
}

}  // namespace contest::test
