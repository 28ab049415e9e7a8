#pragma once
// A timeline of the machine during a run: a sampler thread reads, at 10 Hz
// by default, the CPU split (/proc/stat), PSI (/proc/pressure), the reads
// and writes of one path's disk (/proc/diskstats) and memory (/proc/meminfo)
// and keeps them compactly as column arrays. The window totals (PSI and
// vmstat deltas, bytes, CPU) come from its first and last samples.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/observe/block_device.h"
#include "contest/observe/pressure.h"
#include "contest/observe/window_observer.h"

namespace contest {

// Cumulative /proc/stat jiffies of the whole machine.
struct CpuJiffies {
    std::uint64_t user = 0;    // user + nice (guest is inside user)
    std::uint64_t system = 0;  // system + irq + softirq
    std::uint64_t iowait = 0, steal = 0;
    std::uint64_t total = 0;  // every field but guest/guest_nice
};
std::optional<CpuJiffies> parse_cpu_jiffies(const std::string& proc_stat);

// The share of the machine's CPU time that `field` took between two
// readings, in %; null when the total did not grow or the field went
// backwards (iowait can: the kernel does not keep it monotonic).
nlohmann::json cpu_share_pct(const CpuJiffies& earlier, const CpuJiffies& later,
                             std::uint64_t CpuJiffies::*field);
// {"user", "system", "iowait", "steal"}: cpu_share_pct of each.
nlohmann::json cpu_split_pct(const CpuJiffies& earlier, const CpuJiffies& later);

// Sectors (512 bytes) read and written: the /proc/diskstats line of `device`.
struct DiskSectors {
    std::uint64_t read = 0, written = 0;
};
std::optional<DiskSectors> parse_diskstats(const std::string& text, const std::string& device);

struct MemoryKiB {
    std::uint64_t free = 0, cached = 0, dirty = 0, writeback = 0;
};
std::optional<MemoryKiB> parse_meminfo(const std::string& text);

// One reading of every source; absent parts are nullopt.
struct TimelineSample {
    double t_s = 0;  // since the sampler's start, steady clock
    std::optional<CpuJiffies> cpu;
    PsiTotals psi;
    std::optional<DiskSectors> disk;
    std::optional<MemoryKiB> memory;
};

struct TimelineOptions {
    double hz = 10;
    std::string disk_path = ".";  // whose device's reads/writes are sampled (the workdir)
};

class TimelineSampler {
  public:
    explicit TimelineSampler(TimelineOptions options = {});
    ~TimelineSampler();  // stops the thread if still running
    TimelineSampler(const TimelineSampler&) = delete;
    TimelineSampler& operator=(const TimelineSampler&) = delete;

    // Takes the first sample (and vmstat) now, then one every 1/hz s.
    void start();
    // Records the moment `name` ("workload_start", "workload_end") happened.
    void mark(const std::string& name);
    // Takes the last sample (and vmstat) and joins the thread.
    void stop();

    std::vector<TimelineSample> samples() const;
    // PSI/vmstat deltas, disk bytes and mean CPU split between the first and
    // last samples.
    nlohmann::json window_totals() const;
    // {"t0_unix_s", "step_s", "t_s": [...], "device", "columns": {name: [...]},
    //  "units": {...}, "marks": {...}, "totals": window_totals()}: rates are
    // over the interval ending at each sample, so their first entry is null.
    nlohmann::json to_json() const;

  private:
    TimelineSample take_sample() const;
    void loop();

    TimelineOptions options_;
    BlockDevice device_;
    std::chrono::steady_clock::time_point t0_;
    double t0_unix_s_ = 0;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    std::vector<TimelineSample> samples_;
    std::map<std::string, double> marks_;
    PressureSnapshot first_pressure_, last_pressure_;
};

// The sampler over the workload's window: started and marked at its start,
// marked at its end, stopped once it is reaped; the record's "timeline".
class TimelineObserver : public WindowObserver {
  public:
    explicit TimelineObserver(TimelineOptions options) : sampler_(std::move(options)) {}
    void begin() override;
    void end() override { sampler_.mark("workload_end"); }
    void record(RunRecord& rec) override;

  private:
    TimelineSampler sampler_;
};

}  // namespace contest
