#include "contest/run/runner.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "contest/run/config_record.h"
#include "contest/run/kernel_runs.h"
#include "contest/run/leftovers.h"
#include "contest/run/result_writer.h"
#include "contest/run/resume.h"
#include "contest/run/run_plan.h"
#include "contest/run/suite_runner.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

// The plan's result files, in `out` with one writer each: the resumed file
// (checked against this run's config record), or a new file per combination.
std::vector<ResultWriter> open_results(const RunConfig& config, RunPlan& plan,
                                       const nlohmann::json& record, const std::string& started_at,
                                       RunOutcome& out) {
    if (plan.resumed) {
        out.results.push_back(continued_result(config, std::move(*plan.resumed), record));
        out.paths.push_back(config.resume);
        for (const auto& r : out.results[0].runs)
            if (!r.ok()) ++out.failed_runs;
    } else {
        out.results = new_results(config, plan, record, started_at);
        for (const auto& result : out.results)
            out.paths.push_back(new_result_path(config.results_dir, result.label, started_at));
    }
    std::vector<ResultWriter> writers;
    for (std::size_t v = 0; v < out.results.size(); ++v)
        writers.emplace_back(out.results[v], out.paths[v]);
    return writers;
}

// The planned runs a resumed file does not hold yet (all of them otherwise).
int runs_to_do(const RunPlan& plan, const std::vector<ResultFile>& results) {
    int to_do = 0;
    for (const auto& step : plan.runs)
        to_do += !already_done(results[step.variant], plan.load_names[step.load], step.index);
    return to_do;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// With --runs auto, whether the runs stop before plan.runs[next]: only where
// a round ends there, and when enough_rounds says the rounds so far suffice.
// `taken` runs of this invocation took the time since `started` (under
// --resume, fewer than the plan's first `next`).
bool auto_runs_done(const RunConfig& config, const RunPlan& plan, std::size_t next,
                    std::size_t taken, std::chrono::steady_clock::time_point started,
                    SuiteRunner& runner, RunOutcome& out, Progress& progress) {
    if (!config.auto_runs || next == 0) return false;
    const unsigned round = plan.runs[next - 1].index;
    if (next < plan.runs.size() && plan.runs[next].index == round) return false;
    const auto in_round = std::count_if(plan.runs.begin(), plan.runs.end(),
                                        [&](const auto& step) { return step.index == round; });
    const RoundsTimed timed{seconds_since(started),
                            static_cast<double>(taken) / static_cast<double>(in_round)};
    return enough_rounds(*config.auto_runs, round, timed, out.results, progress, runner.shown_ci());
}

// Takes the plan's runs in order, each under its combination's knobs; stops
// early when --runs auto has enough after a round.
void take_runs(const RunConfig& config, const RunPlan& plan, const LoadOptions& load_options,
               std::optional<KnobGuard>& knob_guard, SuiteRunner& runner, RunOutcome& out,
               Progress& progress) {
    std::vector<std::unique_ptr<LoadSession>> prepared(plan.loads.size());
    if (config.order != RunOrder::blocks) {
        // Every load is prepared before the first run, so one that can't
        // be fails before anything is measured.
        for (std::size_t k = 0; k < plan.loads.size(); ++k)
            prepared[k] = runner.prepare(*plan.loads[k], load_options);
    }
    // --budget counts from the first run on: preparing the loads is not a round.
    const auto started = std::chrono::steady_clock::now();
    std::size_t taken = 0;
    for (std::size_t k = 0; k < plan.runs.size(); ++k) {
        const auto& step = plan.runs[k];
        if (already_done(out.results[step.variant], plan.load_names[step.load], step.index))
            continue;  // --resume
        auto& p = prepared[step.load];
        if (!p) {
            // blocks: one load prepared at a time, its files gone before the next's.
            for (auto& other : prepared) other.reset();
            p = runner.prepare(*plan.loads[step.load], load_options);
        }
        if (knob_guard) knob_guard->set(plan.combinations[step.variant]);
        runner.record_run(*p, step.index, step.variant);
        ++taken;
        if (auto_runs_done(config, plan, k + 1, taken, started, runner, out, progress)) break;
    }
}

// --kernel: the plan's runs taken a guest at a time, each guest the runs of
// one kernel in one round; what it brought back goes into its kernel's file
// (its fingerprint, the loads' facts and the probes' plan from the first
// guest that wrote a result file). Stops early, as take_runs does, when
// --runs auto has enough after a round.
void take_guest_runs(const RunConfig& config, const RunPlan& plan, KernelGuests& guests,
                     SuiteRunner& runner, RunOutcome& out, Progress& progress) {
    std::vector<bool> seen_guest(plan.labels.size(), false);
    const auto started = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < plan.runs.size();) {
        const auto& first = plan.runs[k];
        std::vector<std::string> loads;
        for (; k < plan.runs.size() && plan.runs[k].index == first.index &&
               plan.runs[k].variant == first.variant;
             ++k)
            loads.emplace_back(plan.load_names[plan.runs[k].load]);
        GuestRound got =
            guests.run_round(first.variant, first.index, loads,
                             guest_seed(plan.seed, first.index, first.variant), progress);
        ResultFile& file = out.results[first.variant];
        if (got.result && !seen_guest[first.variant]) {
            seen_guest[first.variant] = true;
            file.config["vm"]["host_system"] = file.system;
            file.system = got.result->system;
            for (const char* key : {"latency", "workload", "jobs"})
                if (got.result->config.contains(key)) file.config[key] = got.result->config[key];
        }
        if (got.result)
            for (const auto& [load, facts] : got.result->loads.items()) file.loads[load] = facts;
        file.config["vm"]["boots"].push_back(
            {{"round", first.index}, {"up_s", got.up_s}, {"total_s", got.total_s}});
        runner.record_guest_runs(first.variant, got.runs, got.total_s);
        // --kernel is not resumed: every run so far is this invocation's.
        if (auto_runs_done(config, plan, k, k, started, runner, out, progress)) break;
    }
}

// Every file saved as complete; a failed save is kept in save_failure.
void save_complete(std::vector<ResultWriter>& writers, RunOutcome& out) {
    const std::string finished_at = utc_timestamp();
    for (std::size_t v = 0; v < writers.size(); ++v) {
        out.results[v].finished_at = finished_at;
        out.results[v].complete = true;
        try {
            writers[v].save();
        } catch (const SaveFailed& e) {
            out.save_failure = e.what();
        }
    }
}

}  // namespace

RunOutcome run_suite(const RunConfig& config, Progress& progress) {
    check_run_options(config);
    restore_knobs_left_changed(config.workload.workdir);
    // Everything that can be refused is refused before anything is measured.
    RunPlan plan = make_run_plan(config);
    // Every value written and read back; restored on every way out of here.
    std::optional<KnobGuard> knob_guard;
    if (!plan.knobs.empty()) knob_guard.emplace(plan.knobs, config.workload.workdir);
    for (const auto& folder : plan.result_folders) check_results_folder(folder);
    remove_what_killed_runs_left(config, plan.result_folders, progress);

    // --kernel: the workload is prepared, and the probes calibrated, in each guest.
    std::optional<KernelGuests> guests;
    if (!config.kernels.empty()) guests.emplace(config, progress);
    LoadOptions load_options = config.load;
    if (!guests) {
        progress.note("contest: preparing the " + plan.workload->name() + " workload");
        plan.workload->prepare(progress);
        load_options.workload_source = plan.workload->source_tree();
    }

    RunOutcome out;
    const std::string started_at = utc_timestamp();
    std::optional<latency::LatencyPlan> latency_plan =
        guests ? std::nullopt : latency_plan_of(config, plan.resumed);
    nlohmann::json record = config_record(config, plan, latency_plan);
    if (guests) record["vm"] = guests->vm_record();
    std::vector<ResultWriter> writers = open_results(config, plan, record, started_at, out);
    if (guests)
        for (std::size_t v = 0; v < out.results.size(); ++v) {
            out.results[v].config["kernel"] = guests->kernel_record(v);
            // The kernels are the values of one knob, so that report and
            // compare pair their rounds as --vary's.
            const Knob kernel_knob{"kernel", "", plan.labels, ""};
            out.results[v].config["vary"] =
                vary_record(started_at + "-" + std::to_string(plan.seed), {kernel_knob}, {v});
        }
    // Each file is made with its first run: none ever holds 0 runs.
    for (const auto& path : out.paths) progress.note("contest: results go to " + path.string());

    SuiteRunner runner(config, *plan.workload, progress, out, writers,
                       runs_to_do(plan, out.results), std::move(latency_plan));
    try {
        if (guests)
            take_guest_runs(config, plan, *guests, runner, out, progress);
        else
            take_runs(config, plan, load_options, knob_guard, runner, out, progress);
    } catch (const Interrupted&) {
        progress.clear();
        for (auto& writer : writers) writer.save_interrupted();
        throw;  // through knob_guard, which restores the knobs
    } catch (const SaveFailed& e) {
        progress.clear();
        out.save_failure = e.what();
        return out;  // through knob_guard, which restores the knobs
    }
    progress.clear();
    if (knob_guard) knob_guard->restore();
    save_complete(writers, out);
    progress.clear();
    return out;
}

}  // namespace contest
