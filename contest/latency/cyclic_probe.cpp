// cyclic: stress-ng's cyclic stressor and cyclictest's measure, a sleeper
// that wakes every interval and does nothing else.
#include <string>

#include "contest/latency/probe_table.h"
#include "contest/sys/errors.h"

namespace contest::latency {

namespace {

constexpr ProbeOwnOption kCyclicOptions[] = {
    {.name = "interval-us",
     .help = "wake every N us",
     .others = "the others keep their own period"},
};

void configure_cyclic(ProbeOptions& o, const ProbeSettings& settings) {
    const std::int64_t interval_us = settings.interval_us;
    if (interval_us < kMinIntervalUs || interval_us > kMaxIntervalUs)
        throw UsageError("--interval-us " + std::to_string(interval_us) + ": must be " +
                         std::to_string(kMinIntervalUs) + ".." + std::to_string(kMaxIntervalUs));
    o.period_ns = interval_us * 1000;
}

}  // namespace

extern const ProbeInfo kCyclicProbe{
    .name = "cyclic",
    .help =
        "wakes every --interval-us and measures how late: the wake-up latency "
        "cyclictest measures",
    .options = kCyclicOptions,
    .configure = configure_cyclic,
};

}  // namespace contest::latency
