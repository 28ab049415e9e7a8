#pragma once
// perf_event_open counters on a workload's whole process tree: opened on the
// child's pid after fork and before exec (the child waits at an ExecGate),
// enabled by the kernel at exec, inherited by everything the workload forks,
// and read once when the workload has exited but is not yet reaped.
//
// Two groups: the software events (task-clock leads) and the hardware events
// (cycles leads), each read in one go with PERF_FORMAT_GROUP so its members
// share one time_enabled/time_running. When the PMU has fewer counters than
// the group needs, the kernel multiplexes and the counts are scaled by
// time_enabled / time_running (stress-ng --perf does the same); a group that
// never ran is "not counted", never 0. An event the machine lacks (a VM with
// no PMU: ENOENT/EOPNOTSUPP) is recorded with the reason and never fails.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "contest/observe/window_observer.h"
#include "contest/sys/unique_fd.h"

namespace contest {

struct PerfEventSpec {
    const char* name;  // perf's name: "task-clock", "cycles", ...
    std::uint32_t type;
    std::uint64_t config;
};

// The hardware group, its leader first (the tests open each alone).
std::span<const PerfEventSpec> hardware_perf_events();

struct PerfCount {
    std::string name;
    bool counted = false;
    std::uint64_t raw = 0;         // as the kernel returned it
    double value = 0;              // raw * time_enabled / time_running; valid when counted
    std::uint64_t enabled_ns = 0;  // time the event was enabled (the workload ran)
    std::uint64_t running_ns = 0;  // time it was on a PMU counter
    std::string reason;            // why not counted, or what limits a count; empty otherwise
};

// One group's read() buffer with read_format PERF_FORMAT_GROUP |
// TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING | ID: nr, time_enabled,
// time_running, then nr pairs {value, id}. `ids` are the kernel ids of the
// events in `names` order (PERF_EVENT_IOC_ID). Pure, so fake reads test it.
// An event whose id is not in the buffer is "not counted" with a reason.
std::vector<PerfCount> scale_group_read(std::span<const std::uint64_t> buffer,
                                        const std::vector<std::string>& names,
                                        const std::vector<std::uint64_t>& ids);

// /proc/sys/kernel/perf_event_paranoid and what it means for this process;
// `blocks` says the setting keeps us from counting the kernel side.
struct PerfParanoid {
    std::optional<int> level;
    bool privileged = false;  // root (or CAP_PERFMON) is not bound by it
    bool blocks = false;
    std::string note;
};
PerfParanoid read_perf_paranoid();
// The same from a level (nullopt: no such file) and whether we are privileged.
PerfParanoid perf_paranoid_from(std::optional<int> level, bool privileged);

struct PerfReading {
    std::vector<PerfCount> counts;  // software events then hardware events
    PerfParanoid paranoid;
    const PerfCount* find(const std::string& name) const;
    // IPC, cache-miss and branch-miss rates, each only where both halves counted.
    std::optional<double> ipc() const;
    std::optional<double> cache_miss_rate() const;
    std::optional<double> branch_miss_rate() const;
    nlohmann::json to_json() const;
};

class PerfCounters {
  public:
    PerfCounters() = default;
    PerfCounters(const PerfCounters&) = delete;
    PerfCounters& operator=(const PerfCounters&) = delete;

    // Opens every event on `pid` (not yet exec'd), disabled until its exec.
    // Never throws: an event that can't be opened keeps its reason.
    void open(pid_t pid);
    // Reads every group. Call when the workload has exited (its pidfd is
    // readable) and before wait4 reaps it; children it reaped are included.
    PerfReading read() const;

  private:
    struct Group {
        std::vector<std::string> names;
        std::vector<std::uint64_t> ids;
        std::vector<UniqueFd> fds;               // leader first; -1 where open failed
        std::vector<std::string> open_failures;  // per name; empty when opened
    };
    Group open_group(std::span<const PerfEventSpec> events, pid_t pid) const;
    Group software_, hardware_;
    PerfParanoid paranoid_;
    bool exclude_kernel_ = false;
};

// The workload's counters as a window observer: opened on its pid while it
// waits at an exec gate, read when it exits, before it is reaped.
class PerfObserver : public WindowObserver {
  public:
    PerfObserver() = default;  // throws EnvironmentError when no gate can be made
    PerfObserver(const PerfObserver&) = delete;
    PerfObserver& operator=(const PerfObserver&) = delete;
    void prepare_spawn(SpawnOptions& so) override;
    void begin() override {}
    void end() override;
    void record(RunRecord& rec) override;

  private:
    ExecGate gate_;
    PerfCounters counters_;
    nlohmann::json reading_;
};

}  // namespace contest
