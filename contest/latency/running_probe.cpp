#include "contest/latency/running_probe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <new>
#include <thread>

#include "contest/latency/probe_loop.h"
#include "contest/latency/probe_sleeper.h"
#include "contest/sys/errors.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"

namespace contest::latency {

namespace {

constexpr std::int64_t kStartTimeoutNs = 10'000'000'000;
constexpr std::int64_t kSettleTimeoutNs = 10'000'000'000;

void nap() {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

RunningProbe::RunningProbe(const ProbeOptions& options,
                           const std::optional<WorkCalibration>& calibration)
    : options_(options), calibration_(calibration) {
    if (options_.cpu_share > 0) {
        if (!calibration_) throw std::logic_error("audio and video probes need a calibration");
        chunks_ = chunks_per_period(options_, *calibration_);
    }
    int raw_fd = -1;
    if (options_.raw_path) {
        raw_fd = ::open(options_.raw_path->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (raw_fd < 0)
            throw UsageError("--latency-raw " + *options_.raw_path + ": " + std::strerror(errno));
    }
    void* mem = ::mmap(nullptr, sizeof(ProbeShared), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        if (raw_fd >= 0) ::close(raw_fd);
        throw EnvironmentError(std::string("mmap: ") + std::strerror(errno));
    }
    shared_ = new (mem) ProbeShared();
    ProbeShared* shared = shared_;
    const ProbeOptions& o = options_;
    std::uint64_t chunks = chunks_;
    try {
        group_ = GroupGuard(fork_function(
            [&o, chunks, raw_fd, shared] { return run_probe(o, chunks, raw_fd, *shared); }));
    } catch (...) {
        if (raw_fd >= 0) ::close(raw_fd);
        throw;
    }
    if (raw_fd >= 0) ::close(raw_fd);  // the probe has its own copy
    try {
        std::int64_t give_up = monotonic_ns() + kStartTimeoutNs;
        while (!shared_->ready.load(std::memory_order_acquire)) {
            if (auto why = failure()) throw EnvironmentError(*why);
            if (monotonic_ns() > give_up)
                throw EnvironmentError(std::string(name_of(options_.kind)) +
                                       " probe: not ready after 10 s");
            throw_if_interrupted();
            nap();
        }
    } catch (...) {
        // No destructor runs for a constructor that throws: stop, then unmap.
        group_.stop();
        unmap();
        throw;
    }
}

void RunningProbe::unmap() {
    shared_->~ProbeShared();
    ::munmap(shared_, sizeof(ProbeShared));
    shared_ = nullptr;
}

RunningProbe::~RunningProbe() {
    group_.stop();
    unmap();
}

void RunningProbe::open_window(std::int64_t at_ns) {
    opened_ns_ = at_ns;
    shared_->window_start_ns.store(opened_ns_, std::memory_order_release);
}

void RunningProbe::end_window(std::int64_t at_ns) {
    closed_ns_ = at_ns;
    shared_->window_end_ns.store(closed_ns_, std::memory_order_release);
}

void RunningProbe::wait_closed() {
    std::int64_t give_up = closed_ns_ + kSettleTimeoutNs + 2 * options_.period_ns;
    while (!shared_->closed.load(std::memory_order_acquire)) {
        if (failure() || monotonic_ns() > give_up) {
            // Stopped (or gone) before it settled: no writer is left, so the
            // counts can be read; they may lack the window's last periods.
            complete_ = false;
            group_.stop();
            return;
        }
        throw_if_interrupted();
        nap();
    }
}

ProbeResult RunningProbe::result() const {
    ProbeResult r;
    r.options = options_;
    r.setup = shared_->setup;
    r.calibration = calibration_;
    r.chunks_per_period = chunks_;
    r.stats = LatencyStats(shared_->window);
    r.window_s = static_cast<double>(closed_ns_ - opened_ns_) / 1e9;
    r.complete = complete_;
    const CpuMark& a = shared_->cpu_open;
    const CpuMark& b = shared_->cpu_close;
    if (a.taken && b.taken && b.at_ns > a.at_ns) {
        r.cpu_user_s = b.user_s - a.user_s;
        r.cpu_sys_s = b.sys_s - a.sys_s;
        r.cpu_pct =
            100.0 * (*r.cpu_user_s + *r.cpu_sys_s) / (static_cast<double>(b.at_ns - a.at_ns) / 1e9);
    }
    if (shared_->error[0]) r.failure = std::string(shared_->error);
    return r;
}

std::optional<std::string> RunningProbe::failure() const {
    std::string name = std::string(name_of(options_.kind)) + " probe";
    if (group_.pgid() <= 0) return name + ": not running";
    siginfo_t si{};
    // WNOWAIT: look, don't reap; the group guard is the one that reaps.
    if (::waitid(P_PID, static_cast<id_t>(group_.pgid()), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        si.si_pid == 0)
        return std::nullopt;
    if (shared_->error[0]) return name + ": " + shared_->error;
    return name + (si.si_code == CLD_EXITED
                       ? ": exited with status " + std::to_string(si.si_status)
                       : std::string(": killed by signal ") + ::strsignal(si.si_status));
}

}  // namespace contest::latency
