#pragma once
// What a result file records of the run that made it: the config (the
// options as given, the seed, the probes' plan), --vary's knobs, the times,
// and the head of each new file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/utc_timestamp.h"

namespace contest {

// The config as the result file holds it (valid UTF-8), so that a resumed
// file's config compares equal to this run's.
nlohmann::json config_record(const RunConfig& config, const RunPlan& plan,
                             const std::optional<latency::LatencyPlan>& latency_plan);

// The record every file of one --vary run shares (so report can pair their
// rounds), with this file's own values.
nlohmann::json vary_record(const std::string& group, const std::vector<Knob>& knobs,
                           const std::vector<std::size_t>& combination);

// --kernel and --boot: the kernels recorded as the values of one knob, "kernel", so
// that report and compare pair their rounds as they pair --vary's; this
// file's value is the label of kernel `kernel`.
nlohmann::json kernels_vary_record(const std::string& group, const std::vector<LabelRun>& labels,
                                   std::size_t kernel);

// The result files of a new run, one per label (in the labels' order),
// with no runs yet: label, version, start, the machine's fingerprint
// (system_fingerprint), the config record and the group of --vary's
// values or of --kernel's or --boot's kernels.
std::vector<ResultFile> new_results(const RunConfig& config, const RunPlan& plan,
                                    const nlohmann::json& config_record,
                                    const std::string& started_at, const nlohmann::json& system);

}  // namespace contest
