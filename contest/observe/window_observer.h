#pragma once
// What watches one workload run: each measurement of the timed window (perf
// counters, the timeline, the machine's CPU, the latency probes, the load's
// work) is a WindowObserver, and observe_window runs the workload among
// them, so adding one is a class and a line in the run's list, not another
// hand-written begin and end in the middle of the window.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"

namespace contest {

class WindowObserver {
  public:
    virtual ~WindowObserver() = default;
    // Before the spawn: what must be set up on the child before its exec
    // (the perf counters' exec gate). At most one observer sets the hooks.
    virtual void prepare_spawn(SpawnOptions&) {}
    // The moment before the workload starts.
    virtual void begin() = 0;
    // Just after the spawn: the workload's pid (its process group's too).
    virtual void spawned(pid_t) {}
    // The moment it is seen to exit, before it is reaped.
    virtual void end() = 0;
    // After reaping (the exit already in rec): adds what it saw.
    virtual void record(RunRecord& rec) = 0;
    // CPU% of contest's own processes it watched (the load, the probes)
    // over the window, known after record: not the rest of the machine's.
    virtual double own_cpu_pct() const { return 0; }
};

// What wait4 said about the workload, into the run's record.
void record_exit(const ExitInfo& ex, RunRecord& rec);

// Runs argv as the timed workload among the observers, in their order:
// prepare_spawn each, begin each, spawn (its wall time starts here), wait;
// at its exit, before reaping, end each, the last begun first, so that the
// samples taken nearest the spawn are taken nearest the exit too; then its
// group stopped (stray descendants), record_exit, and record each in order
// (an observer that needs the others' own_cpu_pct goes last). `started`
// is set to the spawn's moment, for hooks.tick.
ExitInfo observe_window(const std::vector<std::string>& argv, SpawnOptions so, WaitHooks hooks,
                        const std::vector<WindowObserver*>& observers, RunRecord& rec,
                        std::chrono::steady_clock::time_point* started = nullptr);

}  // namespace contest
