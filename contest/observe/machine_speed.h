#pragma once
// The machine's speed over a workload's window: a thread of contest's own
// times one fixed unit of work every 250 ms and the run records the mean.
// It is timed in the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), not in
// wall time: when the guest kernel runs the workload or the load instead of
// the sampler, the unit's CPU time does not grow (the comparison's own load
// is not counted against the machine), but when the host takes the vCPU
// without reporting it as steal, or the CPU's clock drops, the same
// instructions take more CPU time. Two kernels compared on a machine that
// slowed down between them show it here.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "contest/observe/window_observer.h"

namespace contest {

// The iterations of the dependent integer chain that make one unit: about
// 100 µs on the project's 2-CPU VM (AMD EPYC). Never change it: unit_cpu_us
// in a result file is the CPU time of exactly this many iterations, and a
// file written with another count cannot be compared with the old ones.
inline constexpr std::uint64_t speed_unit_iterations = 38'000;

// Time between the starts of two units, steady clock.
inline constexpr std::chrono::milliseconds speed_sample_period{250};

// The sampler thread's name (/proc/PID/task/TID/comm).
inline constexpr const char* speed_thread_name = "contest-speed";

// One unit of work run now on the calling thread: its CPU time in µs, and
// the wall time it took (µs, steady clock; for tests and benches). nullopt
// when the thread's CPU clock cannot be read.
struct SpeedSample {
    double cpu_us = 0;
    double wall_us = 0;
};
std::optional<SpeedSample> time_speed_unit();

// The mean of the samples' CPU time; nullopt when there are none.
std::optional<double> mean_unit_cpu_us(const std::vector<SpeedSample>& samples);

// Between begin() and end(), a thread takes one sample at once (so a run
// shorter than the period has one) and then one every period; record()
// sets rec.unit_cpu_us to their mean, and leaves it unset when the CPU
// clock could not be read. The thread is stopped and joined in end(), in
// record() and in the destructor: none outlives the observer on any path.
// Its own CPU (measured under 0.1% of a CPU, the units and their wake-ups,
// docs/noise.md) is not counted as contest's side (own_cpu_pct): it is far
// below what moves others_cpu_pct.
class MachineSpeedObserver : public WindowObserver {
  public:
    explicit MachineSpeedObserver(std::chrono::steady_clock::duration period = speed_sample_period)
        : period_(period) {}
    ~MachineSpeedObserver() override;
    MachineSpeedObserver(const MachineSpeedObserver&) = delete;
    MachineSpeedObserver& operator=(const MachineSpeedObserver&) = delete;

    void begin() override;
    void end() override { stop(); }
    void record(RunRecord& rec) override;

    // The samples taken so far (every one the clock could be read for), and
    // how many could not be timed.
    std::vector<SpeedSample> samples() const;
    unsigned failed_samples() const;

  private:
    void loop();
    void stop();

    std::chrono::steady_clock::duration period_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    std::vector<SpeedSample> samples_;
    unsigned failed_ = 0;
};

}  // namespace contest
