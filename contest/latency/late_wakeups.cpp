#include "contest/latency/late_wakeups.h"

namespace contest::latency {

void LateWakeups::add(const LateWakeup& w) {
    ++seen;
    if (kept < items.size()) {
        items[kept++] = w;
        return;
    }
    // Full: the least late kept gives way. A linear scan of 2048 entries
    // costs a few microseconds, and only on a wake-up already late by the
    // threshold (a period, by default).
    std::size_t least = 0;
    for (std::size_t i = 1; i < kept; ++i)
        if (items[i].late_ns() < items[least].late_ns()) least = i;
    if (w.late_ns() > items[least].late_ns()) items[least] = w;
}

}  // namespace contest::latency
