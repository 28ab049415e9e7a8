#include "contest/latency/running_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "contest/latency/probe_loop.h"
#include "contest/latency/probe_sleeper.h"
#include "contest/latency/probe_table.h"
#include "contest/sys/errors.h"
#include "contest/sys/signals.h"

namespace contest::latency {

namespace {

// A probe is ready in milliseconds on real hardware; in an emulated guest
// (`run --kernel` under TCG) beside a CPU load it took over 10 s.
constexpr std::int64_t kStartTimeoutNs = 60'000'000'000;
constexpr std::int64_t kSettleTimeoutNs = 10'000'000'000;

void nap() {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

// Work chunks a period (audio and video, which need the calibration); 0 for cyclic.
std::uint64_t work_chunks(const ProbeOptions& options,
                          const std::optional<WorkCalibration>& calibration) {
    if (options.cpu_share <= 0) return 0;
    if (!calibration) throw std::logic_error("audio and video probes need a calibration");
    return chunks_per_period(options, *calibration);
}

// The probe's --latency-raw file, opened for it, or no descriptor.
UniqueFd open_raw_file(const ProbeOptions& options) {
    if (!options.raw_path) return UniqueFd();
    UniqueFd fd(::open(options.raw_path->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0)
        throw UsageError("--latency-raw " + *options.raw_path + ": " + std::strerror(errno));
    return fd;
}

}  // namespace

RunningProbe::RunningProbe(const ProbeOptions& options,
                           const std::optional<WorkCalibration>& calibration)
    : options_(options),
      calibration_(calibration),
      chunks_(work_chunks(options_, calibration_)),
      raw_fd_(open_raw_file(options_)),
      worker_([&o = options_, chunks = chunks_, raw_fd = raw_fd_.get()](ProbeShared& shared) {
          return run_probe(o, chunks, raw_fd, shared);
      }) {
    raw_fd_.reset();  // the probe has its own copy
    // Should this throw, the members' destructors still run: the worker is
    // stopped and reaped, then its block unmapped.
    std::int64_t give_up = monotonic_ns() + kStartTimeoutNs;
    while (!worker_.block().ready.load(std::memory_order_acquire)) {
        if (auto why = failure()) throw EnvironmentError(*why);
        if (monotonic_ns() > give_up)
            throw EnvironmentError(std::string(options_.name()) + " probe: not ready after " +
                                   std::to_string(kStartTimeoutNs / 1'000'000'000) + " s");
        throw_if_interrupted();
        nap();
    }
}

void RunningProbe::open_window(std::int64_t at_ns) {
    opened_ns_ = at_ns;
    worker_.block().window_start_ns.store(opened_ns_, std::memory_order_release);
}

void RunningProbe::end_window(std::int64_t at_ns) {
    closed_ns_ = at_ns;
    worker_.block().window_end_ns.store(closed_ns_, std::memory_order_release);
}

void RunningProbe::wait_closed() {
    std::int64_t give_up = closed_ns_ + kSettleTimeoutNs + 2 * options_.period_ns;
    while (!worker_.block().closed.load(std::memory_order_acquire)) {
        if (failure() || monotonic_ns() > give_up) {
            // Stopped (or gone) before it settled: no writer is left, so the
            // counts can be read; they may lack the window's last periods.
            complete_ = false;
            worker_.stop();
            return;
        }
        throw_if_interrupted();
        nap();
    }
}

ProbeResult RunningProbe::result() const {
    const ProbeShared& shared = worker_.block();
    ProbeResult r;
    r.options = options_;
    r.setup = shared.setup;
    r.calibration = calibration_;
    r.chunks_per_period = chunks_;
    r.stats = LatencyStats(shared.window);
    r.window_s = static_cast<double>(closed_ns_ - opened_ns_) / 1e9;
    r.complete = complete_;
    const CpuMark& a = shared.cpu_open;
    const CpuMark& b = shared.cpu_close;
    if (a.taken && b.taken && b.at_ns > a.at_ns) {
        r.cpu_user_s = b.user_s - a.user_s;
        r.cpu_sys_s = b.sys_s - a.sys_s;
        r.cpu_pct =
            100.0 * (*r.cpu_user_s + *r.cpu_sys_s) / (static_cast<double>(b.at_ns - a.at_ns) / 1e9);
    }
    if (shared.error[0]) r.failure = std::string(shared.error);
    r.late_threshold_ns = shared.late.threshold_ns;
    r.late_seen = shared.late.seen;
    r.late.assign(shared.late.items.begin(), shared.late.items.begin() + shared.late.kept);
    if (!r.failure && !complete_ && options_.probe->unsettled)
        r.failure = options_.probe->unsettled(options_);
    return r;
}

std::optional<std::string> RunningProbe::failure() const {
    auto why = worker_.failure();
    if (!why) return std::nullopt;
    return std::string(options_.name()) + " probe: " + *why;
}

}  // namespace contest::latency
