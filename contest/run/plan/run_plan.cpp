#include "contest/run/plan/run_plan.h"

#include <algorithm>
#include <random>

#include "contest/run/plan/places.h"
#include "contest/run/plan/resume.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "loads/registry.h"
#include "workloads/workload_registry.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

std::vector<Knob> resolve_knobs(const RunConfig& config) {
    std::vector<Knob> knobs;
    for (const auto& spec : config.vary)
        knobs.push_back(resolve_knob(spec, config.workload.workdir));
    return knobs;
}

// The labels, each knowing its place and its folder: a resumed file's own
// folder, results/LABEL/ for each new file.
std::vector<LabelRun> plan_labels(const RunConfig& config, const RunPlan& plan) {
    std::vector<LabelRun> labels = place_info(config.place).labels(config, plan);
    for (std::size_t v = 0; v < labels.size(); ++v) {
        labels[v].index = v;
        labels[v].folder = config.results_dir / labels[v].label;
        if (!config.resume.empty())
            labels[v].folder = config.resume[v].has_parent_path() ? config.resume[v].parent_path()
                                                                  : std::filesystem::path(".");
    }
    return labels;
}

// --resume: each label's file, checked (resume.h); one a label, in order,
// nullopt where the run had not made it. A run none of whose files is there
// is nothing to resume.
std::vector<std::optional<ResultFile>> resumed_files(const RunConfig& config,
                                                     const std::vector<LabelRun>& labels) {
    if (config.resume.empty()) return {};
    if (config.resume.size() != labels.size())
        throw UsageError("--resume: the run's journal names " +
                         std::to_string(config.resume.size()) + " result files for its " +
                         std::to_string(labels.size()) + " labels");
    std::vector<std::optional<ResultFile>> files;
    for (std::size_t v = 0; v < labels.size(); ++v) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(config.resume[v], ec)))
            files.push_back(resumed_result(config.resume[v], labels[v].label));
        else
            files.emplace_back();
    }
    if (std::none_of(files.begin(), files.end(), [](const auto& f) { return f.has_value(); }))
        throw UsageError("--resume " + config.resume.front().string() +
                         ": none of the run's result files is there (it ended before its first "
                         "run was saved): nothing to resume; run again");
    return files;
}

// The first file of those resumed.
const ResultFile* first_resumed(const std::vector<std::optional<ResultFile>>& resumed) {
    for (const auto& file : resumed)
        if (file) return &*file;
    return nullptr;
}

// Every planned run the resumed file does not hold, grouped by round and,
// within a round, into each label's turns.
std::vector<PlannedRound> rounds_to_take(const std::vector<PlannedRun>& runs, const RunPlan& plan) {
    std::vector<PlannedRound> rounds;
    for (const auto& run : runs) {
        if (!plan.resumed.empty() && plan.resumed[run.label] &&
            already_done(*plan.resumed[run.label], plan.load_names[run.load], run.index))
            continue;
        if (rounds.empty() || rounds.back().index != run.index) rounds.push_back({run.index, {}});
        auto& turns = rounds.back().turns;
        if (turns.empty() || turns.back().label != run.label) turns.push_back({run.label, {}});
        turns.back().loads.push_back(run.load);
    }
    return rounds;
}

// The seed of the shuffle: the resumed files', so that the plan is the same.
std::uint64_t order_seed(const RunConfig& config,
                         const std::vector<std::optional<ResultFile>>& resumed) {
    const ResultFile* file = first_resumed(resumed);
    if (file && file->config.contains("order_seed"))
        return file->config["order_seed"].get<std::uint64_t>();
    return config.seed ? *config.seed : std::random_device{}();
}

}  // namespace

void check_run_options(const RunConfig& config) {
    check_label_name(config.label, "--label");
    if (config.runs < 1) throw UsageError("--runs must be at least 1");
    if (config.runs > kMaxRuns)
        throw UsageError("--runs must be at most " + std::to_string(kMaxRuns));
    if (config.auto_runs && config.order == RunOrder::blocks)
        throw UsageError("--runs auto needs runs in rounds (--order shuffled or rounds)");
    if (!config.vary.empty() && config.order == RunOrder::blocks)
        throw UsageError("--vary needs runs in rounds (--order shuffled or rounds)");
    for (const auto& append : config.boot_appends)
        if (config.place == RunPlace::host ||
            std::none_of(config.kernels.begin(), config.kernels.end(),
                         [&](const KernelSpec& k) { return k.label == append.label; }))
            throw UsageError("--boot-append " + printable(append.label) +
                             "=...: no --boot or --kernel has that label");
    check_place(config);
}

RunPlan make_run_plan(const RunConfig& config) {
    RunPlan plan;
    plan.loads = resolve_loads(config.loads, config.load);
    if (plan.loads.empty()) throw UsageError("no loads to run");
    for (const LoadInfo* info : plan.loads) plan.load_names.push_back(info->name);
    plan.workload = make_workload(config.workload);
    plan.knobs = resolve_knobs(config);
    plan.labels = plan_labels(config, plan);
    plan.resumed = resumed_files(config, plan.labels);
    if (const ResultFile* file = first_resumed(plan.resumed))
        plan.probe_calibration = probe_calibration_of(*file);
    plan.seed = order_seed(config, plan.resumed);
    const std::vector<PlannedRun> runs =
        place_info(config.place)
            .runs(plan.load_names, config.runs, config.order, plan.seed, plan.labels.size());
    plan.rounds = rounds_to_take(runs, plan);
    plan.runs_per_round = plan.loads.size() * plan.labels.size();
    return plan;
}

std::size_t RunPlan::runs_to_take() const {
    std::size_t n = 0;
    for (const auto& round : rounds)
        for (const auto& turn : round.turns) n += turn.loads.size();
    return n;
}

std::optional<nlohmann::json> probe_calibration_of(const ResultFile& file) {
    if (!file.config.contains("latency") || !file.config["latency"].contains("calibration"))
        return std::nullopt;
    return file.config["latency"]["calibration"];
}

std::optional<latency::LatencyPlan> latency_plan_of(const RunConfig& config,
                                                    const std::optional<nlohmann::json>& known) {
    if (config.latency_probes.empty()) return std::nullopt;
    std::optional<latency::WorkCalibration> calibration;
    if (known) calibration = latency::calibration_from_json(*known);
    latency::LatencyPlan plan = latency::make_latency_plan(config.latency_probes, calibration);
    plan.dist_ns = config.latency_dist_ns;
    return plan;
}

}  // namespace contest
