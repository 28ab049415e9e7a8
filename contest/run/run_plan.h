#pragma once
// What `contest run` works out before it measures anything: the loads, the
// workload, the --vary combinations and their labels, where the results go,
// the seed and every run in order. Whatever is refused is refused here,
// before a load starts or a file is written.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/knobs.h"
#include "contest/run/run_order.h"
#include "contest/run/runner.h"
#include "loads/registry.h"
#include "workloads/workload.h"

namespace contest {

struct RunPlan {
    std::vector<const LoadInfo*> loads;        // in contest's order
    std::vector<std::string_view> load_names;  // alike
    std::unique_ptr<Workload> workload;
    std::optional<ResultFile> resumed;  // --resume: the interrupted file, checked
    std::vector<Knob> knobs;            // --vary: each resolved, its original value read
    // The knobs' values of each result file (index per knob); one empty
    // combination without --vary; with --kernel, one empty one per kernel.
    std::vector<std::vector<std::size_t>> combinations;
    std::vector<std::string> labels;  // one per combination (--kernel: per kernel)
    std::vector<std::filesystem::path> result_folders;  // where the result files go
    std::uint64_t seed = 0;                             // of the shuffle
    std::vector<PlannedRun> runs;                       // every run, in order
};

// The options that contradict each other or are out of range.
void check_run_options(const RunConfig& config);

// The plan of `config`, with every load, the workload, the resumed file and
// the knobs checked on this machine.
RunPlan make_run_plan(const RunConfig& config);

// --latency: the probes' plan, made once before any load starts (audio and
// video calibrate their work on the idle machine) and kept in the config. A
// resumed file's calibration is reused: its periods all ask for the same work.
std::optional<latency::LatencyPlan> latency_plan_of(const RunConfig& config,
                                                    const std::optional<ResultFile>& resumed);

}  // namespace contest
