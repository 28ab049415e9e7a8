#include "contest/run/places/host/host_rounds.h"

namespace contest {

HostRounds::HostRounds(const RunConfig& config, const RunPlan& plan,
                       std::optional<KnobGuard>& knob_guard, Progress& progress)
    : config_(config),
      plan_(plan),
      knob_guard_(knob_guard),
      progress_(progress),
      load_options_(config.load),
      prepared_(plan.loads.size()) {
    progress.note("contest: preparing the " + plan.workload->name() + " workload");
    plan.workload->prepare(progress);
    load_options_.workload_source = plan.workload->source_tree();
}

std::optional<latency::LatencyPlan> HostRounds::plan_probes() {
    latency_plan_ = latency_plan_of(config_, plan_.probe_calibration);
    return latency_plan_;
}

void HostRounds::begin(RunRecorder& recorder) {
    runner_.emplace(config_, *plan_.workload, progress_, recorder, latency_plan_);
    // Every load is prepared before the first run, so one that can't be
    // fails before anything is measured.
    if (config_.order != RunOrder::blocks)
        for (std::size_t k = 0; k < plan_.loads.size(); ++k)
            prepared_[k] = runner_->prepare(*plan_.loads[k], load_options_);
}

LoadSession& HostRounds::prepared(std::size_t k) {
    if (!prepared_[k]) {
        // blocks: one load prepared at a time, its files gone before the next's.
        for (auto& other : prepared_) other.reset();
        prepared_[k] = runner_->prepare(*plan_.loads[k], load_options_);
    }
    return *prepared_[k];
}

void HostRounds::take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                           RunRecorder&) {
    for (const std::size_t k : loads) {
        LoadSession& load = prepared(k);
        if (knob_guard_) knob_guard_->set(label.combination);
        runner_->record_run(load, index, label);
    }
}

}  // namespace contest
