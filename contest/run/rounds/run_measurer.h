#pragma once
// One `contest run`'s runs on this host, each measured and recorded: clean
// the workload, set the caches, start the load and check it works, time
// the workload among the run's observers over its exact window, stop the
// load, and hand the run to the recorder, which saves it in its label's
// file.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/run/rounds/cache_state.h"
#include "contest/run/record/label_run.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/record/run_recorder.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "workloads/workload.h"

namespace contest {

// The state the host's runs of one suite share: the cache warning, the
// longest finished run (for the hang warning), the probes' plan, the
// recorder (and its ETA).
class RunMeasurer {
  public:
    RunMeasurer(const RunConfig& config, Workload& workload, Progress& progress,
                RunRecorder& recorder, std::optional<latency::LatencyPlan> latency_plan);

    // A load made ready for its runs: its private folder and its prepare
    // step (a file to read, an archive to unpack) done, its facts recorded
    // in every label's file.
    std::unique_ptr<LoadSession> prepare(const LoadInfo& info, const LoadOptions& load_options);

    // Run i of a prepared load, recorded and saved in its label's file
    // (throws SaveFailed when the save fails).
    void record_run(LoadSession& load, unsigned i, LabelRun& label);

  private:
    RunRecord measure_run(LoadSession& load, unsigned i, const LabelRun& label);
    bool clean_workload(const LoadInfo& info, unsigned i, RunRecord& rec);
    bool start_load(LoadSession& load, unsigned i, RunRecord& rec);
    void run_workload(const std::string& head, LoadSession& load, unsigned i, RunRecord& rec);
    ExitInfo time_workload(const std::string& head, LoadSession& load, RunRecord& rec,
                           latency::LatencyProbes* probes);
    std::string timeout_text() const;
    void warn_if_hung(const std::string& head, double elapsed_s);
    void report_failure(const LoadInfo& info, unsigned i, const std::string& why);

    const RunConfig& config_;
    Workload& workload_;
    Progress& progress_;
    RunRecorder& recorder_;
    Eta& eta_;
    CacheState caches_;
    const std::optional<latency::LatencyPlan> latency_plan_;
    double longest_ok_s_ = 0;  // of the finished runs, for the hang warning
    bool hang_warned_ = false;
    bool why_warned_ = false;  // --latency-why: "not recorded" said once
    unsigned runs_begun_ = 0;  // the runs measure_run has begun, for the start barrier
};

}  // namespace contest
