#include "contest/observe/machine_speed.h"

#include <pthread.h>
#include <time.h>

namespace contest {

namespace {

using Clock = std::chrono::steady_clock;

// Read before and written after every unit: the compiler can neither start
// the chain from a known seed nor drop a result nobody reads, so the loop
// is neither folded to a constant nor removed.
volatile std::uint64_t speed_unit_seed = 0x2545F4914F6CDD1Dull;

// xorshift64 then a multiply, each step depending on the one before: the
// CPU cannot overlap iterations, so the time is the chain's latency, the
// same on every run of the same machine at the same clock.
[[gnu::noinline]] std::uint64_t speed_unit(std::uint64_t x, std::uint64_t iterations) {
    x |= 1;  // xorshift's only fixed point is 0
    for (std::uint64_t i = 0; i < iterations; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x *= 0x9E3779B97F4A7C15ull;
    }
    return x;
}

std::optional<double> thread_cpu_us() {
    timespec t{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return std::nullopt;
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

}  // namespace

std::optional<SpeedSample> time_speed_unit() {
    const std::uint64_t seed = speed_unit_seed;
    const auto wall_start = Clock::now();
    const auto cpu_start = thread_cpu_us();
    const std::uint64_t result = speed_unit(seed, speed_unit_iterations);
    const auto cpu_end = thread_cpu_us();
    const auto wall_end = Clock::now();
    speed_unit_seed = result;
    if (!cpu_start || !cpu_end) return std::nullopt;
    return SpeedSample{*cpu_end - *cpu_start,
                       std::chrono::duration<double, std::micro>(wall_end - wall_start).count()};
}

std::optional<double> mean_unit_cpu_us(const std::vector<SpeedSample>& samples) {
    if (samples.empty()) return std::nullopt;
    double sum = 0;
    for (const SpeedSample& s : samples) sum += s.cpu_us;
    return sum / static_cast<double>(samples.size());
}

MachineSpeedObserver::~MachineSpeedObserver() {
    stop();
}

void MachineSpeedObserver::begin() {
    std::lock_guard lock(mutex_);
    if (thread_.joinable()) return;
    samples_.clear();
    failed_ = 0;
    stopping_ = false;
    thread_ = std::thread([this] { loop(); });
}

void MachineSpeedObserver::loop() {
    // Named, so that top -H and the cost bench (bench/machine_speed_cost.sh)
    // can tell it from contest's other threads.
    ::pthread_setname_np(::pthread_self(), speed_thread_name);
    // Absolute deadlines: a unit delayed by the scheduler delays that one
    // sample, not the rate.
    auto next = Clock::now();
    std::unique_lock lock(mutex_);
    // The first unit is taken before the stop is looked at: a run shorter
    // than the period (or one whose end came before this thread first ran)
    // still has its sample.
    do {
        lock.unlock();
        auto s = time_speed_unit();
        lock.lock();
        if (s)
            samples_.push_back(*s);
        else
            ++failed_;
        const auto now = Clock::now();
        while (next <= now) next += period_;
    } while (!wake_.wait_until(lock, next, [this] { return stopping_; }));
}

void MachineSpeedObserver::stop() {
    {
        std::lock_guard lock(mutex_);
        if (!thread_.joinable()) return;
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void MachineSpeedObserver::record(RunRecord& rec) {
    stop();
    std::lock_guard lock(mutex_);
    rec.unit_cpu_us = mean_unit_cpu_us(samples_);
}

std::vector<SpeedSample> MachineSpeedObserver::samples() const {
    std::lock_guard lock(mutex_);
    return samples_;
}

unsigned MachineSpeedObserver::failed_samples() const {
    std::lock_guard lock(mutex_);
    return failed_;
}

}  // namespace contest
