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
//   json split = why.attribute(results, census);  // per probe; says
//                                     // "not recorded" and why, when so
//
// The instance is removed when this goes out of scope, on every path
// (Ctrl-C and SIGTERM unwind to it); one left by a SIGKILL is removed by the
// next LatencyWhy.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/latency/late_wakeup_causes.h"
#include "contest/latency/latency_probes.h"
#include "contest/latency/probe_result.h"
#include "contest/latency/task_census.h"
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
    // attribute_trace's split of the instance's trace, the tasks told by
    // what `census` saw of them in the window.
    nlohmann::json attribute(const std::vector<ProbeResult>& results,
                             const TaskCensus& census) const;

  private:
    LatencyWhyOptions options_;
    std::unique_ptr<TraceInstance> trace_;
    std::string why_not_;
    bool stopped_ = false;
};

// The split of a trace's text: per probe of `results` (by name), the
// threshold, the late wake-ups seen, kept and found in the trace, the late
// time by cause, the tasks that took most and the `worst` spikes with their
// split. Each late wake-up is followed from the CPU its timer woke it on to
// where it was woken to run and each CPU it was moved to (locate_late_wakeup).
struct TraceFacts {
    std::size_t buffer_size_kb = 0;
    std::vector<std::string> missing_events;
    bool truncated = false;  // the text lacks the trace's oldest part
};
nlohmann::json attribute_trace(std::string_view text, const TraceFacts& facts,
                               const std::vector<ProbeResult>& results, const TaskCensus& census,
                               std::size_t worst);

// `contest run --latency-why`: the recorder around each workload run's
// window, the split under each probe's "why" in the run's latency object.
// Whose the tasks are is looked up while the window runs (TaskCensus): the
// workload's by its process group (its pid), the load's by its own, the
// probes' and contest's threads as contest's, the rest of the run's cgroup
// leaf by their parents; the trace's forks add the children those made.
class LatencyWhyObserver : public WindowObserver {
  public:
    // Goes after `probes` in the run's observers (its record reads theirs).
    LatencyWhyObserver(const LatencyProbes& probes, pid_t load_pgid);
    void begin() override;
    void spawned(pid_t pid) override;
    void end() override;
    void record(RunRecord& rec) override;
    const std::string& not_recorded() const { return why_.not_recorded(); }

  private:
    LatencyWhy why_;
    const LatencyProbes& probes_;
    pid_t load_pgid_ = 0;
    std::optional<TaskCensus> census_;
};

// The groups contest knows at a window's start: each probe's as contest's,
// the load's (0: none).
std::vector<std::pair<pid_t, TaskClass>> known_groups(const LatencyProbes& probes, pid_t load_pgid);

}  // namespace contest::latency
