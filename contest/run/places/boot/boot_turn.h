#pragma once
// A --boot step's turn, the boot place's (place_boot.cpp): the run's config
// as its journal holds it (resolved at the start: no word parsed again,
// nothing of a user's read); then the turn's runs taken by the run's one loop (run_rounds)
// over a plan of that one turn, on this host with the host's backend, into
// the label's own file; or, when the boot did not bring up the label's
// kernel, the turn's runs recorded boot_failed there. What comes before
// and after a turn (which boot this is, which one next) is boot_run.h's.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/progress.h"

namespace contest {

// The turn's runs taken on this host into its label's file. What a contest
// killed hard left in the workdir (a power cut mid-turn) is put right
// first, the knobs and loads are let go however the turn ends (run_rounds),
// and each run records the boot it was taken in.
void take_boot_turn(const BootState& state, const JournalTurn& turn, const RunningKernel& k,
                    const RunJournal& journal, Progress& progress);

// The turn's runs recorded boot_failed, with why, in its label's file.
void record_boot_failed(const BootState& state, const JournalTurn& turn, const std::string& why,
                        const RunningKernel& k, const RunJournal& journal);

// What a label's file records of how its kernel was booted: the label as
// the state has it, and why its kernel could not boot the next, when it
// could not.
nlohmann::json boot_record(const BootState& state, std::size_t label);

}  // namespace contest
