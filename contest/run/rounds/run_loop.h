#pragma once
// `contest run`'s loop (run_rounds, the one loop that takes turns, and
// take_turns around it, which a journal's driver calls, run_driver.h): it takes the planned rounds
// in order (run_plan.h), each label's turn taken where its runs run (round_backend.h: on this host
// or in a guest) and every run saved as it comes back, until the plan is
// done, --runs auto has enough, a save fails or the user stops it.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "contest/run/plan/knobs.h"
#include "contest/run/plan/planned_round.h"
#include "contest/run/rounds/round_backend.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/record/run_outcome.h"
#include "contest/sys/progress.h"

namespace contest {

struct RunPlan;

// How the loop's labels get their files, and how it leaves them: what
// differs between a whole run (new files, or the resumed ones;
// complete at the end) and a --boot step's one turn (each label's own file
// from the run's state; not complete: the run goes on after a reboot).
struct LabelFiles {
    // Moves plan.labels into out.labels, each with its file open.
    std::function<void(RunPlan& plan, const RoundBackend& backend, const nlohmann::json& record,
                       RunOutcome& out)>
        open;
    bool complete_at_end = true;
    // Told of each round as the loop takes it: before its first run
    // (started) and once its last run is saved (done). A journaled run's
    // driver marks the round's turns in its journal (run_driver.h); unset
    // for every other run.
    std::function<void(const PlannedRound& round, bool done)> round_mark = {};
};

// The one loop that takes turns, whoever plans them: the plan's rounds in
// order, each label's turn taken by the backend and every run saved as it
// comes back, until the plan is done, --runs auto has enough, a save fails
// (save_failure set) or an interrupt (each file saved, complete: false,
// then Interrupted rethrown). Every way out goes through the same
// clean-up: the backend let go (its loads stopped and their files gone),
// the knobs restored (knob_guard), the progress line cleared.
RunOutcome run_rounds(const RunConfig& config, RunPlan& plan, std::unique_ptr<RoundBackend> backend,
                      std::optional<KnobGuard>& knob_guard, const LabelFiles& files,
                      Progress& progress);

// The plan's turns taken where its place takes them, through run_rounds:
// the knobs (--vary) set and put back, the place's backend made. Its two
// callers: run_driver.h's turns on the host or in guests (a new run,
// --resume, a bisection's batch in guests), and a --boot step's one turn
// (boot_turn.h).
RunOutcome take_turns(const RunConfig& config, RunPlan& plan, const LabelFiles& files,
                      Progress& progress);

// Names a new result file of the run: its label's place v and name.
using NewFileNamer = std::function<std::filesystem::path(std::size_t v, const std::string& label)>;

// A whole run's files: the resumed ones (each checked against this run's
// config record), or a new one per label, named by `file_of` (the driver's,
// run_driver.h: the first the name its journal claimed, each recorded in
// it; new_result_path's when unset), with `system` (the machine's fingerprint) and the time the run
// started; complete at the end.
LabelFiles run_label_files(const RunConfig& config, const std::string& started_at,
                           const nlohmann::json& system, Progress& progress,
                           NewFileNamer file_of = {});

}  // namespace contest
