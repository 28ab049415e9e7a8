#include "contest/run/rounds/run_loop.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "contest/history/history_db.h"
#include "contest/observe/sysinfo.h"
#include "contest/run/plan/config_record.h"
#include "contest/run/rounds/leftovers.h"
#include "contest/run/plan/places.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/plan/resume.h"
#include "contest/run/rounds/round_backend.h"
#include "contest/run/plan/run_plan.h"
#include "contest/run/record/run_recorder.h"
#include "contest/run/record/run_sinks.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

// The plan's labels, moved into `out` with their files: the resumed ones
// (each checked against this run's config record), or a new one per label,
// with what the backend records of where its runs are taken; `file_of`
// names each new file.
void open_label_files(const RunConfig& config, RunPlan& plan, const RoundBackend& backend,
                      const nlohmann::json& record, const std::string& started_at,
                      const nlohmann::json& system, const NewFileNamer& file_of, RunOutcome& out) {
    const ResultSinks sinks = run_result_sinks(config.sinks, config.results_dir);
    std::vector<ResultFile> made = new_results(config, plan, record, started_at, system);
    for (std::size_t v = 0; v < made.size(); ++v) {
        LabelRun& label = plan.labels[v];
        backend.describe(made[v], label);
        if (plan.resumed.empty()) {
            label.writer =
                ResultWriter(file_of ? file_of(v, label.label)
                                     : new_result_path(config.results_dir, label.label, started_at),
                             sinks);
        } else {
            label.writer = ResultWriter(config.resume[v], sinks);
            // The file as the run holds it now is the one it made: refused
            // when its config differs. A label whose file the run had not
            // made yet gets it now, where its journal named it.
            if (plan.resumed[v]) {
                label.result =
                    continued_result(config.resume[v], std::move(*plan.resumed[v]), made[v].config);
                for (const auto& r : label.result.runs)
                    if (!r.ok()) ++out.failed_runs;
                continue;
            }
        }
        label.result = std::move(made[v]);
    }
    out.labels = std::move(plan.labels);
}

// With --runs auto, whether the runs stop after round `round`: when
// enough_rounds says the rounds so far suffice. `taken` runs of this
// invocation took the time since `started` (under --resume, fewer than
// the rounds so far hold).
bool auto_runs_done(const RunConfig& config, const RunPlan& plan, unsigned round, std::size_t taken,
                    Clock::time_point started, RunRecorder& recorder, Progress& progress) {
    if (!config.auto_runs) return false;
    const RoundsTimed timed{std::chrono::duration<double>(Clock::now() - started).count(),
                            static_cast<double>(taken) / static_cast<double>(plan.runs_per_round)};
    // The labels' files are compared side by side, so they are lent to
    // enough_rounds (which sets each one's stopped_because) and put back
    // however it ends.
    std::vector<LabelRun>& labels = recorder.labels();
    std::vector<ResultFile> files;
    for (auto& label : labels) files.push_back(std::move(label.result));
    const auto put_back = [&] {
        for (std::size_t v = 0; v < labels.size(); ++v) labels[v].result = std::move(files[v]);
    };
    bool done = false;
    try {
        done = enough_rounds(*config.auto_runs, round, timed, files, progress,
                             recorder.eta().widest_ci);
    } catch (...) {
        put_back();
        throw;
    }
    put_back();
    return done;
}

// After round `round`, whether the caller's stop rule (RunConfig::stop_rule)
// says the rounds have told enough; each file's stopped_because says why.
bool stop_rule_done(const RunConfig& config, unsigned round, RunRecorder& recorder) {
    if (!config.stop_rule) return false;
    std::vector<ResultFile> files;
    for (const auto& label : recorder.labels()) files.push_back(label.result);
    const std::string why = config.stop_rule(round, files);
    if (why.empty()) return false;
    for (auto& label : recorder.labels()) label.result.stopped_because = why;
    return true;
}

// Takes the plan's rounds in order, each label's turn where the backend
// takes its runs; stops early when --runs auto has enough after a round,
// or the caller's stop rule says so.
// Each round marked started and done (files.round_mark), when the run
// keeps a journal.
// The backend goes with the rounds: what it holds (the prepared loads) is
// let go, on every way out, before the files are saved for the last time.
void take_rounds(std::unique_ptr<RoundBackend> backend, const RunConfig& config,
                 const RunPlan& plan, const LabelFiles& files, RunRecorder& recorder,
                 Progress& progress) {
    backend->begin(recorder);
    // --budget counts from the first run on: preparing the loads is not a round.
    const auto started = Clock::now();
    std::size_t taken = 0;
    for (const PlannedRound& round : plan.rounds) {
        if (files.round_mark) files.round_mark(round, false);
        backend->take_round(round, recorder);
        if (files.round_mark) files.round_mark(round, true);
        for (const LabelTurn& turn : round.turns) taken += turn.loads.size();
        if (auto_runs_done(config, plan, round.index, taken, started, recorder, progress)) break;
        if (stop_rule_done(config, round.index, recorder)) break;
    }
}

// Whether the plan has a turn of label v.
bool takes_turns(const RunPlan& plan, std::size_t v) {
    return std::any_of(plan.rounds.begin(), plan.rounds.end(), [&](const PlannedRound& round) {
        return std::any_of(round.turns.begin(), round.turns.end(),
                           [&](const LabelTurn& turn) { return turn.label == v; });
    });
}

// Every file saved as complete; a failed save is kept in save_failure.
void save_complete(RunOutcome& out) {
    const std::string finished_at = utc_timestamp();
    for (auto& label : out.labels) {
        label.result.finished_at = finished_at;
        label.result.complete = true;
        try {
            label.save();
        } catch (const SaveFailed& e) {
            out.save_failure = e.what();
        }
    }
}

}  // namespace

RunOutcome run_rounds(const RunConfig& config, RunPlan& plan, std::unique_ptr<RoundBackend> backend,
                      std::optional<KnobGuard>& knob_guard, const LabelFiles& files,
                      Progress& progress) {
    RunOutcome out;
    const nlohmann::json record = config_record(config, plan, backend->plan_probes());
    files.open(plan, *backend, record, out);
    RunRecorder recorder(out, plan.runs_to_take());
    try {
        take_rounds(std::move(backend), config, plan, files, recorder, progress);
    } catch (const Interrupted&) {
        progress.clear();
        // The files the plan takes turns in (a --boot step's: its turn's
        // label's alone; the others were not opened to be written).
        for (std::size_t v = 0; v < out.labels.size(); ++v)
            if (takes_turns(plan, v)) out.labels[v].save_interrupted();
        throw;  // through knob_guard, which restores the knobs
    } catch (const SaveFailed& e) {
        progress.clear();
        out.save_failure = e.what();
        return out;  // through knob_guard, which restores the knobs
    }
    progress.clear();
    if (knob_guard) knob_guard->restore();
    if (files.complete_at_end) save_complete(out);
    progress.clear();
    return out;
}

RunOutcome take_turns(const RunConfig& config, RunPlan& plan, const LabelFiles& files,
                      Progress& progress) {
    // Every value written and read back; restored on every way out of here.
    std::optional<KnobGuard> knob_guard;
    if (!plan.knobs.empty()) knob_guard.emplace(plan.knobs, config.workload.workdir);
    std::unique_ptr<RoundBackend> backend =
        place_info(config.place).backend(config, plan, knob_guard, progress);
    return run_rounds(config, plan, std::move(backend), knob_guard, files, progress);
}

LabelFiles run_label_files(const RunConfig& config, const std::string& started_at,
                           const nlohmann::json& system, Progress& progress, NewFileNamer file_of) {
    return {[&config, started_at, system, &progress, file_of](
                RunPlan& plan, const RoundBackend& backend, const nlohmann::json& record,
                RunOutcome& out) {
                open_label_files(config, plan, backend, record, started_at, system, file_of, out);
                // Each file is made with its first run: none ever holds 0 runs.
                for (const auto& label : out.labels)
                    progress.note("contest: results go to " + label.path().string());
                for (const std::string& sink : run_sink_names(config.sinks, config.results_dir))
                    progress.note("contest: and into " + sink);
            },
            true};
}

}  // namespace contest
