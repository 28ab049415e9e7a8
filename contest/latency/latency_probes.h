#pragma once
// The probes of one workload run, as `contest run --latency PROBES` drives
// them (and as `contest latency` drives its one):
//
//   LatencyPlan plan = make_latency_plan(options);   // once per contest run, before any
//                                                    // load starts: calibrates audio/video
//   record plan_json(plan) in the result's config;
//   for each workload run:
//       start the load, let it warm up
//       LatencyProbes probes(plan);                 // one process per probe, next to the load
//       observe_window(..., {..., &probes, ...}, rec)  // begin, end, then record: rec.latency
//       stop the load; `probes` stops them
//
// begin() and end() are as cheap as the load's sample (a store of the time);
// end() then waits for each probe to account its last period, normally
// within one period of the end.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/latency/probe_options.h"
#include "contest/latency/probe_result.h"
#include "contest/latency/running_probe.h"
#include "contest/latency/work_calibration.h"
#include "contest/observe/window_observer.h"

namespace contest::latency {

struct LatencyPlan {
    std::vector<ProbeOptions> probes;
    std::optional<WorkCalibration> calibration;  // when a probe works (audio, video)
    // Bucket width, in ns, of a distribution printed or drawn from the results
    // (--latency-dist); the histogram itself is always kept at 1 us.
    std::int64_t dist_ns = 1000;
};

// Calibrates the work loop when a probe needs it: call before any load runs.
// With `known` (a resumed file's), no new calibration: that one is used.
LatencyPlan make_latency_plan(std::vector<ProbeOptions> probes,
                              std::optional<WorkCalibration> known = std::nullopt);

// What the result's config keeps: each probe's settings and the calibration.
nlohmann::json plan_json(const LatencyPlan& plan);

// A window observer of `contest run --latency`; `contest latency` drives
// begin, end and results itself.
class LatencyProbes : public WindowObserver {
  public:
    // Starts every probe of the plan, each in its own process. With a
    // raw_tag, a probe's raw file (--latency-raw FILE) is FILE.TAG.PROBE, so
    // the windows of many runs and probes do not overwrite one another.
    explicit LatencyProbes(const LatencyPlan& plan, const std::string& raw_tag = "");
    void begin() override;  // the workload's window starts now
    void end() override;    // ... and ends now
    std::vector<ProbeResult> results() const;
    // The run's "latency" object and the probes' CPU, from one results().
    void record(RunRecord& rec) override;
    double own_cpu_pct() const override { return cpu_pct_; }
    // "cyclic probe: why" for each probe whose window record() found failed
    // (kept in the record too; the run says them where the user looks).
    const std::vector<std::string>& recorded_failures() const { return recorded_failures_; }
    // The first probe that stopped, or nullopt.
    std::optional<std::string> failure() const;
    // Each probe's process group: contest's own, for --latency-why.
    std::vector<pid_t> process_groups() const;

  private:
    std::vector<std::unique_ptr<RunningProbe>> probes_;
    double cpu_pct_ = 0;
    std::vector<std::string> recorded_failures_;
};

// {"cyclic": {...}, "audio": {...}}: a run's "latency" object, from its
// probes' results().
nlohmann::json run_latency_json(const std::vector<ProbeResult>& results);

}  // namespace contest::latency
