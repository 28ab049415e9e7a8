#pragma once
// --latency-why: what held the probes' CPUs when they woke late. A tracing
// instance of contest's own (observe/trace_instance.h) records the scheduler
// and interrupt events of every CPU through the window as a bounded flight
// recorder; after it, each probe's late wake-ups (late_wakeups.h) are split
// by what had the CPU (late_wakeup_causes.h) and summed per cause.
//
//   LatencyWhy why(options);          // removes a killed contest's instance,
//                                     // mounts tracefs if it can, makes ours
//   why.begin(); ...window...; why.end();
//   json split = why.attribute(results, classify);  // per probe; says
//                                     // "not recorded" and why, when so
//
// The instance is removed when this goes out of scope, on every path
// (Ctrl-C and SIGTERM unwind to it); one left by a SIGKILL is removed by the
// next LatencyWhy.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/latency/late_wakeup_causes.h"
#include "contest/latency/latency_probes.h"
#include "contest/latency/probe_result.h"
#include "contest/observe/trace_instance.h"

namespace contest::latency {

// Where tracefs is looked for instead of /sys/kernel/tracing: a test's
// stand-in (an empty folder makes the recorder unavailable).
inline constexpr const char* kTracefsRootVariable = "CONTEST_TRACEFS_ROOT";

struct LatencyWhyOptions {
    std::string tracefs_root = kTracefsRoot;
    std::size_t buffer_size_kb = 4096;  // per CPU
    std::size_t worst = 5;              // spikes kept in full per probe
};

class LatencyWhy {
  public:
    explicit LatencyWhy(const LatencyWhyOptions& options);
    // The options with kTracefsRootVariable's root where it is set.
    static LatencyWhyOptions from_environment();
    // The instances killed contests left (remove_stale_instances), removed;
    // every run and latency command calls it at its start, --why or not.
    static std::vector<std::string> remove_stale();
    ~LatencyWhy();
    LatencyWhy(const LatencyWhy&) = delete;
    LatencyWhy& operator=(const LatencyWhy&) = delete;

    // Why nothing is recorded (no tracefs, no permission), once; "" when it is.
    const std::string& not_recorded() const { return why_not_; }
    // What the recorder lacks, for one warning: "no irq_vectors:local_timer_entry".
    std::vector<std::string> missing_events() const;

    void begin();
    void end();
    // Per probe of `results` (by name): {"recorded": false, "why": ...}, or
    // the threshold, the late wake-ups seen, kept and found in the trace,
    // the late time by cause, the tasks that took most, and the `worst`
    // spikes with their split.
    nlohmann::json attribute(const std::vector<ProbeResult>& results,
                             const TaskClassifier& classify) const;
    // With `workload` (its pid): its descendants, as the recorder's forks
    // give them, are the workload's, before `classify` is asked.
    nlohmann::json attribute(const std::vector<ProbeResult>& results, pid_t workload,
                             const TaskClassifier& classify) const;

  private:
    LatencyWhyOptions options_;
    std::unique_ptr<TraceInstance> trace_;
    std::string why_not_;
    bool stopped_ = false;
};

// `contest run --latency-why`: the recorder around each workload run's
// window, the split under each probe's "why" in the run's latency object.
// The workload's tasks are told by their line of forks from its pid (the
// recorder keeps sched_process_fork), since they are gone when the window
// is read; the load's by its process group; the probes' are contest's.
class LatencyWhyObserver : public WindowObserver {
  public:
    // Goes after `probes` in the run's observers (its record reads theirs).
    LatencyWhyObserver(const LatencyProbes& probes, pid_t load_pgid);
    void begin() override { why_.begin(); }
    void spawned(pid_t pid) override { workload_ = pid; }
    void end() override { why_.end(); }
    void record(RunRecord& rec) override;
    const std::string& not_recorded() const { return why_.not_recorded(); }

  private:
    LatencyWhy why_;
    const LatencyProbes& probes_;
    pid_t load_pgid_ = 0;
    pid_t workload_ = 0;
};

// Whose a pid is, from the process groups contest knows (the workload's,
// each load's: pgid -> class), contest's own pid and the kernel's threads
// (PF_KTHREAD in /proc/PID/stat, or a kernel thread's name when the task is
// gone); everything else is another process.
TaskClassifier classify_by_groups(std::vector<std::pair<pid_t, TaskClass>> groups);

}  // namespace contest::latency
