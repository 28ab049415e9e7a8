#include "contest/run/places/boot/boot_turn.h"

#include <algorithm>

#include "contest/observe/sysinfo.h"
#include "contest/run/plan/config_record.h"
#include "contest/run/rounds/leftovers.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/run/record/run_outcome.h"
#include "contest/run/plan/run_plan.h"
#include "contest/run/record/run_sinks.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"
#include "contest/sys/workdir.h"

namespace contest {

namespace fs = std::filesystem;

namespace {

// The labels' files of the run: each one's own when it has runs already,
// else a new one (the run's group, so report pairs their rounds) with
// this boot's fingerprint, `system`.
std::vector<LabelRun> open_labels(const RunConfig& config, RunPlan& plan, const BootState& state,
                                  const nlohmann::json& record, const nlohmann::json& system) {
    std::vector<ResultFile> fresh = new_results(config, plan, record, state.started_at, system);
    std::vector<LabelRun> labels = std::move(plan.labels);
    std::error_code ec;
    const ResultSinks sinks = run_result_sinks(config.sinks, config.results_dir);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const fs::path path = state.labels[i].result;
        labels[i].writer = ResultWriter(path, sinks);
        labels[i].result = fs::exists(path, ec) ? read_result_file(path) : std::move(fresh[i]);
        labels[i].result.config["boot"] = boot_record(state, i);
    }
    return labels;
}

nlohmann::json booted_record(const RunningKernel& k, const nlohmann::json& system) {
    return {{"release", valid_utf8(k.release)},
            {"cmdline", valid_utf8(k.cmdline)},
            {"boot_id", valid_utf8(k.boot_id)},
            {"system", system}};
}

struct RunOfState {
    RunConfig config;
    RunPlan plan;
};

// The run's config from its journal and its plan; for a turn to take
// (`clean_up`), once what a contest killed hard left is put right
// (plan_after_clean_up: a power cut mid-turn leaves its loads' folders and
// half-written files to the next turn). The journal's config is the
// start's, resolved (every path absolute, no --config): the step runs in
// "/", so that nothing reads in the folder the run was started in, and
// uses the workdir only while nobody but root could change it.
RunOfState plan_of_state(const BootState& state, const RunJournal& journal, bool clean_up) {
    std::error_code ec;
    fs::current_path("/", ec);
    if (ec) throw EnvironmentError("cannot change to /: " + ec.message());
    if (auto why = folder_open_to_others(state.workdir))
        throw EnvironmentError("the boot run's workdir " + printable(state.workdir) + ": " +
                               printable(*why) + ": refusing it, root runs the turn in it");
    RunOfState r{journal.config, {}};
    if (r.config.place != RunPlace::boot || r.config.kernels.size() != state.labels.size() ||
        r.config.workload.workdir != fs::path(state.workdir))
        throw UsageError(
            "the boot run's journal is not its state's run (another place, other "
            "labels or another workdir)");
    if (clean_up) {
        r.config.workload.opened_workdir = r.config.load.opened_workdir =
            Workdir::open(r.config.workload.workdir);
        r.plan = plan_after_clean_up(r.config);
    } else {
        r.plan = make_run_plan(r.config);
    }
    return r;
}

// The probes' calibration a label's turn reuses: its file's, made in its
// first measured boot, so that every run of the file asks for the work the
// file records (a resumed file's is reused the same way); nullopt when the
// file has none yet.
std::optional<nlohmann::json> calibration_of(const BootState& state, std::size_t label) {
    std::error_code ec;
    if (!fs::exists(state.labels[label].result, ec)) return std::nullopt;
    return probe_calibration_of(read_result_file(state.labels[label].result));
}

}  // namespace

nlohmann::json boot_record(const BootState& state, std::size_t i) {
    const BootLabel& l = state.labels[i];
    nlohmann::json j = {{"method", boot_method_name(state.method)},
                        {"kernel", valid_utf8(l.kernel)},
                        {"image", valid_utf8(l.image)},
                        {"initrd", valid_utf8(l.initrd)},
                        {"cmdline", valid_utf8(l.cmdline)},
                        {"release", valid_utf8(l.release)}};
    if (!l.cannot_boot_next.empty()) j["cannot_boot_next"] = valid_utf8(l.cannot_boot_next);
    // What contest built the kernel from (the state's copy of its record,
    // read as untrusted text: kept only when it is a JSON object).
    if (!l.build.empty())
        if (auto build = nlohmann::json::parse(l.build, nullptr, false);
            !build.is_discarded() && build.is_object())
            j["build"] = build;
    return j;
}

void record_boot_failed(const BootState& state, const JournalTurn& turn, const std::string& why,
                        const RunningKernel& k, const RunJournal& journal) {
    RunOfState r = plan_of_state(state, journal, false);
    const nlohmann::json record = config_record(r.config, r.plan, std::nullopt);
    // The machine as this boot has it (each boot has its own kernel and settings).
    const nlohmann::json system = system_fingerprint(r.config.workload.workdir.string());
    std::vector<LabelRun> labels = open_labels(r.config, r.plan, state, record, system);
    LabelRun& label = labels[turn.label];
    for (const auto& load : turn.loads) {
        RunRecord rec;
        rec.load = load;
        rec.index = rec.round = static_cast<int>(turn.round);
        rec.status = RunStatus::boot_failed;
        rec.reason = valid_utf8(why);
        rec.booted = booted_record(k, system);
        label.result.runs.push_back(rec);
    }
    label.save();
}

void take_boot_turn(const BootState& state, const JournalTurn& turn, const RunningKernel& k,
                    const RunJournal& journal, Progress& progress) {
    RunOfState r = plan_of_state(state, journal, true);
    RunConfig& config = r.config;
    r.plan.probe_calibration = calibration_of(state, turn.label);
    if (r.plan.probe_calibration && !config.latency_probes.empty())
        progress.note("contest: the probes' work as " + state.labels[turn.label].label +
                      "'s file records it (calibrated in its first measured boot)");
    const LabelTurn taken = label_turn_of(turn, r.plan, "the boot run's journal: its turn");
    r.plan.rounds = {PlannedRound{turn.round, {taken}}};
    const nlohmann::json system = system_fingerprint(config.workload.workdir.string());
    std::size_t before = 0;
    const LabelFiles files{
        [&](RunPlan& plan, const RoundBackend&, const nlohmann::json& record, RunOutcome& out) {
            out.labels = open_labels(config, plan, state, record, system);
            LabelRun& label = out.labels[turn.label];
            before = label.result.runs.size();
            // The file's fingerprint is its label's kernel's: the first
            // boot's that measures under it (its file may have been made in
            // the machine's own kernel, by a turn that failed to boot).
            if (std::none_of(label.result.runs.begin(), label.result.runs.end(),
                             [](const RunRecord& run) { return run.ok(); })) {
                label.result.system = system;
                // And its calibration, which a file made by a failed boot lacks.
                if (record.contains("latency")) label.result.config["latency"] = record["latency"];
            }
        },
        false};
    RunOutcome out = take_turns(config, r.plan, files, progress);
    if (!out.save_failure.empty()) throw SaveFailed(out.save_failure);
    LabelRun& label = out.labels[turn.label];
    for (std::size_t i = before; i < label.result.runs.size(); ++i)
        label.result.runs[i].booted = booted_record(k, system);
    label.result.finished_at = utc_timestamp();
    label.save();
}

}  // namespace contest
