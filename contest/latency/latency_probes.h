#pragma once
// The probes of one workload run, as `contest run --latency PROBES` will
// drive them (and as `contest latency` drives its one):
//
//   LatencyPlan plan = make_latency_plan(options);   // once per contest run, before any
//                                                    // load starts: calibrates audio/video
//   record plan_json(plan) in the result's config;
//   for each workload run:
//       RunningLoad load(...);                      // as now
//       LatencyProbes probes(plan);                 // one process per probe, next to the load
//       ... the load's warm-up and progress check ...
//       probes.begin();  load.sample();  spawn the workload
//       wait_child(..., hooks.on_exit = [&] { load.sample(); probes.end(); })
//       run["latency"] = run_latency_json(probes.results());  // then `probes` stops them
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

class LatencyProbes {
  public:
    // Starts every probe of the plan, each in its own process. With a
    // raw_tag, a probe's raw file (--latency-raw FILE) is FILE.TAG.PROBE, so
    // the windows of many runs and probes do not overwrite one another.
    explicit LatencyProbes(const LatencyPlan& plan, const std::string& raw_tag = "");
    void begin();  // the workload's window starts now
    void end();    // ... and ends now
    std::vector<ProbeResult> results() const;
    // The first probe that stopped, or nullopt.
    std::optional<std::string> failure() const;

  private:
    std::vector<std::unique_ptr<RunningProbe>> probes_;
};

// {"cyclic": {...}, "audio": {...}}: a run's "latency" object, from its
// probes' results().
nlohmann::json run_latency_json(const std::vector<ProbeResult>& results);

}  // namespace contest::latency
