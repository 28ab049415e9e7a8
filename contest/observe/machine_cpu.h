#pragma once
// The whole machine's CPU time, from /proc/stat: what lets a run say how
// much of the machine went to something other than the workload and the
// load (another user's build, cron, the hypervisor), i.e. whether its
// numbers can be trusted.
#include <optional>
#include <string>
#include <vector>

#include "contest/observe/window_observer.h"

namespace contest {

struct MachineCpu {
    double busy_s = 0;   // user + nice + system + irq + softirq, all CPUs, since boot
    double steal_s = 0;  // time the hypervisor ran something else on our vCPUs
};

// The aggregate "cpu" line of /proc/stat's text; nullopt when there is none.
std::optional<MachineCpu> parse_proc_stat(const std::string& text);
// This machine, now; nullopt when /proc/stat can't be read.
std::optional<MachineCpu> read_machine_cpu();

// What the rest of the machine did during one run, in % of one CPU.
struct OutsideCpu {
    double others_pct = 0;  // busy time not spent by the workload, the load or the probes
    double steal_pct = 0;
};

// From samples at the workload's start and end, its wall time, and the CPU%
// the workload and contest's own side (the load, the latency probes) were
// measured to use over that window. Time
// that the load's own kernel threads spend (writeback for io_load) counts
// as the others', as it can't be told apart from /proc/stat.
OutsideCpu outside_cpu(const MachineCpu& start, const MachineCpu& end, double wall_s,
                       double workload_cpu_pct, double contest_side_cpu_pct);

// The machine's CPU time sampled the moment before the workload starts and
// the moment it exits: the record's others_cpu_pct and steal_pct. Needs
// the workload's exit and the own CPU of the observers of contest's side
// (the load, the probes) recorded, so it goes last in the run's list.
class MachineCpuObserver : public WindowObserver {
  public:
    explicit MachineCpuObserver(std::vector<const WindowObserver*> contest_side)
        : contest_side_(std::move(contest_side)) {}
    void begin() override { start_ = read_machine_cpu(); }
    void end() override { end_ = read_machine_cpu(); }
    void record(RunRecord& rec) override;

  private:
    std::vector<const WindowObserver*> contest_side_;
    std::optional<MachineCpu> start_, end_;
};

}  // namespace contest
