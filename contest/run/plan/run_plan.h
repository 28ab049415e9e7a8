#pragma once
// What `contest run` works out before it measures anything: the loads, the
// workload, the labels (--vary's combinations, --kernel's or --boot's
// kernels) and
// where their results go, the seed, and every run still to take, round by
// round (under --resume, those the file does not hold). Whatever is
// refused is refused here, before a load starts or a file is written.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/knobs.h"
#include "contest/run/record/label_run.h"
#include "contest/run/plan/planned_round.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_order.h"
#include "loads/registry.h"
#include "workloads/workload.h"

namespace contest {

struct RunPlan {
    std::vector<const LoadInfo*> loads;        // in contest's order
    std::vector<std::string_view> load_names;  // alike
    std::unique_ptr<Workload> workload;
    // --resume: each label's interrupted file, in the labels' order,
    // checked; nullopt for a label whose file the run had not made yet (its
    // first run not taken). Empty without --resume.
    std::vector<std::optional<ResultFile>> resumed;
    // The latency probes' calibration a file recorded, reused (a resumed
    // run's, a --boot turn's label's): its periods ask for the same work.
    std::optional<nlohmann::json> probe_calibration;
    std::vector<Knob> knobs;  // --vary: each resolved, its original value read
    // One per combination of --vary's values, or per kernel of --kernel
    // or --boot; the -k
    // label alone otherwise. Their files are opened once the config is
    // recorded.
    std::vector<LabelRun> labels;
    std::uint64_t seed = 0;  // of the shuffle
    // The runs to take, in order: every planned run the resumed file does
    // not hold (all of them without --resume).
    std::vector<PlannedRound> rounds;
    std::size_t runs_per_round = 0;  // a whole round's: every load under every label

    std::size_t runs_to_take() const;
};

// The options that contradict each other or are out of range.
void check_run_options(const RunConfig& config);

// The plan of `config`, with every load, the workload, the resumed file and
// the knobs checked on this machine.
RunPlan make_run_plan(const RunConfig& config);

// --latency: the probes' plan, made once before any load starts (audio and
// video calibrate their work on the idle machine) and kept in the config;
// `known` (plan.probe_calibration) reused when a file recorded one.
std::optional<latency::LatencyPlan> latency_plan_of(const RunConfig& config,
                                                    const std::optional<nlohmann::json>& known);

// The calibration `file` recorded, if any.
std::optional<nlohmann::json> probe_calibration_of(const ResultFile& file);

}  // namespace contest
