#include "contest/run/rounds/settle.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <numeric>

#include "contest/sys/number_text.h"
#include "contest/sys/proc_files.h"
#include "contest/sys/signals.h"

namespace contest {

namespace {

constexpr double kSampleS = 0.05;
constexpr std::size_t kWindow = 10;  // samples: half a second

double dirty_mib() {
    const Meminfo m = read_meminfo_kib();
    auto kib = [&](const char* key) {
        auto it = m.find(key);
        return it == m.end() ? 0.0 : static_cast<double>(it->second);
    };
    return (kib("Dirty") + kib("Writeback")) / 1024;
}

// Runnable tasks other than this one (the reader counts itself).
double others_runnable() {
    const auto n = read_procs_running();
    return n && *n > 0 ? static_cast<double>(*n - 1) : 0;
}

}  // namespace

MachineSample sample_machine() {
    return {dirty_mib(), others_runnable()};
}

Settled settle_machine(double max_s, const std::function<MachineSample()>& sample) {
    Settled s;
    if (!(max_s > 0)) {
        s.state = "off";
        return s;
    }
    const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    const double calm = std::max(1.0, static_cast<double>(cpus) / 2);
    // Half a second of samples, or as many as the bound has room for (at
    // least one): a bound under half a second still looks, and can settle.
    const std::size_t window = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::floor(max_s / kSampleS + 1e-9)) + 1, 1, kWindow);
    const auto start = std::chrono::steady_clock::now();
    std::deque<double> runnable;
    double dirty = 0, queue = 0;
    for (;;) {
        const MachineSample now = sample();
        dirty = now.dirty_mib;
        runnable.push_back(now.others_runnable);
        if (runnable.size() > window) runnable.pop_front();
        queue = std::accumulate(runnable.begin(), runnable.end(), 0.0) /
                static_cast<double>(runnable.size());
        s.waited_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (dirty < kSettledDirtyMiB && runnable.size() == window && queue <= calm) {
            s.state = "settled";
            return s;
        }
        if (s.waited_s >= max_s) break;
        interruptible_sleep(kSampleS);
    }
    // The bound as given: "after 0.3 s", not a rounded "after 0 s".
    char text[160];
    std::snprintf(text, sizeof text, "not settled after %s s: %.1f tasks runnable, %.0f MiB dirty",
                  six_digits(max_s).c_str(), queue, dirty);
    s.state = text;
    return s;
}

}  // namespace contest
