#pragma once
// The rounds taken on this host: the workload prepared here, every load
// prepared before the first run (under --order blocks one at a time, its
// files gone before the next's), --vary's knobs set for each run's label,
// and each run measured by RunMeasurer.
#include <memory>
#include <optional>
#include <vector>

#include "contest/run/plan/knobs.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/run/rounds/round_backend.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/rounds/run_measurer.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/progress.h"

namespace contest {

class HostRounds : public RoundBackend {
  public:
    // Prepares the workload. knob_guard, when set, holds --vary's knobs.
    HostRounds(const RunConfig& config, const RunPlan& plan, std::optional<KnobGuard>& knob_guard,
               Progress& progress);

    std::optional<latency::LatencyPlan> plan_probes() override;
    void describe(ResultFile&, const LabelRun&) const override {}
    void begin(RunRecorder& recorder) override;
    void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                   RunRecorder& recorder) override;

  private:
    // Load k, prepared now when it is not yet (blocks: the others let go first).
    LoadSession& prepared(std::size_t k);

    const RunConfig& config_;
    const RunPlan& plan_;
    std::optional<KnobGuard>& knob_guard_;
    Progress& progress_;
    LoadOptions load_options_;
    std::optional<latency::LatencyPlan> latency_plan_;
    std::optional<RunMeasurer> runner_;                   // from begin on
    std::vector<std::unique_ptr<LoadSession>> prepared_;  // per plan load
};

}  // namespace contest
