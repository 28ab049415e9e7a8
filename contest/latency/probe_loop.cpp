#include "contest/latency/probe_loop.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "contest/latency/probe_sleeper.h"
#include "contest/latency/probe_table.h"
#include "contest/latency/work_calibration.h"

namespace contest::latency {

void ProbeShared::fail(const std::string& why) {
    std::snprintf(error, sizeof error, "%s", why.c_str());
}

namespace {

double seconds(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// The probe's CPU and its reaped children's: the programs the exec probe
// starts are its cost to the machine too (the other probes have none).
CpuMark cpu_mark() {
    rusage self{}, children{};
    ::getrusage(RUSAGE_SELF, &self);
    ::getrusage(RUSAGE_CHILDREN, &children);
    CpuMark m;
    m.taken = true;
    m.at_ns = monotonic_ns();
    m.user_s = seconds(self.ru_utime) + seconds(children.ru_utime);
    m.sys_s = seconds(self.ru_stime) + seconds(children.ru_stime);
    return m;
}

// The window's side of one period: what the probe measured, counted only when
// the period's intended wake is in the window contest set.
class WindowAccount {
  public:
    WindowAccount(ProbeShared& shared, std::FILE* raw) : shared_(shared), raw_(raw) {}

    // A frame whose work was all done at done_ns (audio, video): the time
    // since the one before, when that one is known.
    void frame(std::int64_t intended, std::int64_t done_ns) {
        const std::int64_t previous = last_frame_ns_;
        last_frame_ns_ = done_ns;
        if (previous > 0 && in_window(intended)) shared_.window.record_frame(done_ns - previous);
    }

    // A period the probe woke for.
    void woke(std::int64_t intended, std::int64_t latency, bool missed, std::uint64_t done,
              std::uint64_t wanted, int woke_cpu) {
        if (!in_window(intended)) return;
        WindowCounts& w = shared_.window;
        w.record(latency);
        ++w.periods;
        w.missed += missed;
        w.work_done += done;
        w.work_wanted += wanted;
        if (LateWakeups& late = shared_.late; late.threshold_ns > 0 && latency >= late.threshold_ns)
            late.add({intended, intended + latency, woke_cpu >= 0 ? woke_cpu : ::sched_getcpu(),
                      static_cast<int>(::gettid())});
        if (raw_)
            std::fprintf(raw_, "%lld %lld\n", static_cast<long long>(intended - start_),
                         static_cast<long long>(latency));
    }

    // A period over before the probe got to it.
    void skipped(std::int64_t intended, std::uint64_t wanted) {
        if (!in_window(intended)) return;
        WindowCounts& w = shared_.window;
        ++w.periods;
        ++w.missed;
        ++w.skipped;
        w.work_wanted += wanted;
    }

    // Every period intended before `next` is counted. Returns true once the
    // window is over: its counts are final and the probe has nothing to do.
    bool settle(std::int64_t next) {
        if (end_ == kNever || next < end_) return false;
        shared_.cpu_close = cpu_mark();
        // The samples are what --latency-raw asked for: losing them (a full
        // disk, /dev/full) is said, not left for the reader to find out.
        if (raw_ && (std::fflush(raw_) != 0 || std::ferror(raw_)))
            shared_.fail(std::string("--latency-raw: the samples could not be written: ") +
                         std::strerror(errno ? errno : EIO));
        shared_.closed.store(true, std::memory_order_release);
        return true;
    }

  private:
    bool in_window(std::int64_t intended) {
        start_ = shared_.window_start_ns.load(std::memory_order_acquire);
        end_ = shared_.window_end_ns.load(std::memory_order_acquire);
        if (intended < start_ || intended >= end_) return false;
        if (!shared_.cpu_open.taken) shared_.cpu_open = cpu_mark();
        return true;
    }

    ProbeShared& shared_;
    std::FILE* raw_;
    std::int64_t start_ = kNever, end_ = kNever;
    std::int64_t last_frame_ns_ = 0;
};

// cyclic, audio, video: the wake-up's latency, then the period's work (if
// any) until its deadline. Cyclic misses when it wakes a whole period late.
PeriodOutcome wake_and_work(std::int64_t intended, std::int64_t deadline, std::uint64_t chunks,
                            std::uint64_t& state) {
    PeriodOutcome got;
    const std::int64_t woke = monotonic_ns();
    got.sample_ns = woke - intended;
    // Where it woke, before the work may move it (--latency-why's first guess).
    got.woke_cpu = ::sched_getcpu();
    if (chunks == 0) {
        got.missed = woke >= deadline;
        return got;
    }
    std::int64_t now = woke;
    while (got.done < chunks && now < deadline) {
        work_chunk(state);
        ++got.done;
        now = monotonic_ns();
    }
    got.missed = got.done < chunks || now > deadline;
    if (!got.missed) got.frame_done_ns = now;
    return got;
}

}  // namespace

int run_probe(const ProbeOptions& o, std::uint64_t chunks, int raw_fd, ProbeShared& shared) {
    std::FILE* raw = nullptr;
    try {
        ProbeSleeper sleeper(o.method);
        shared.setup = apply_probe_setup(o);
        const OwnPeriod own_period = o.probe->own_period ? o.probe->own_period(o) : nullptr;
        if (raw_fd >= 0) {
            raw = ::fdopen(raw_fd, "w");
            if (!raw) throw std::runtime_error(std::string("raw samples: ") + std::strerror(errno));
            // Large buffer: a write(2) every ~40000 samples, not every 200.
            std::setvbuf(raw, nullptr, _IOFBF, 1 << 20);
            std::fprintf(raw, "# offset_ns latency_ns\n");
        }
        shared.late.threshold_ns = o.why_threshold_ns;
        WindowAccount account(shared, raw);
        const std::int64_t period = o.period_ns;
        std::int64_t intended = monotonic_ns() + period;
        std::uint64_t state = 1;
        shared.ready.store(true, std::memory_order_release);
        for (;;) {
            sleeper.until(intended);
            const std::int64_t deadline = intended + period;
            const PeriodOutcome got =
                own_period ? own_period() : wake_and_work(intended, deadline, chunks, state);
            account.woke(intended, got.sample_ns, got.missed, got.done, chunks, got.woke_cpu);
            if (got.frame_done_ns > 0) account.frame(intended, got.frame_done_ns);
            std::int64_t next = deadline;
            std::int64_t now = monotonic_ns();
            if (now >= next + period) {
                std::int64_t over = (now - next) / period;
                for (std::int64_t k = 0; k < over; ++k) account.skipped(next + k * period, chunks);
                next += over * period;
            }
            if (account.settle(next)) break;
            intended = next;
        }
        // The window is over: wait quietly to be stopped, measuring nothing.
        for (;;) ::pause();
    } catch (const std::exception& e) {
        shared.fail(e.what());
    }
    if (raw) std::fclose(raw);
    return 1;
}

}  // namespace contest::latency
