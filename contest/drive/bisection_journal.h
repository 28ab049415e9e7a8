#pragma once
// The bisection's journal (its folder's .run-journal.json): the config of
// its batches, made once at its start of the words after -- (and under
// --boot, how a part boots), and the bisection's state (its own section,
// bisect/bisect_state.h). Every batch is that config with its own kernels,
// rounds and folder (bisection_drive.h); no word is parsed after the start.
// Root starts each part from it after a reboot, so it is read only from a
// folder nobody else can change.
#include <filesystem>
#include <string>

#include "contest/drive/bisection_drive.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/progress.h"

namespace contest::drive {

// The journal of the bisection in `folder` at its start: the one there
// when it holds a config (a rerun keeps what its start made; its words are
// checked against the state's by the bisection), else `started` (the ends'
// batch as the start parsed it, once) made the bisection's and written: the
// seed unset (each batch draws its own), the workdir absolute (every batch
// runs in this process or in a part root starts from "/"), the results
// database off unless the words named one with --db (a batch is the bisection's
// evidence, kept in its folder; `contest history import` takes it later),
// and under --boot (started.boot) the build config read now into the
// folder's build.config, every batch built from that copy: the running
// kernel's may change before a later part (an upgrade, a part that ends in
// a contest-built kernel), and the user's file too, and with either the
// builds and their cache keys.
RunJournal bisection_journal(const std::filesystem::path& folder, RunJournal started);

// The journal of the bisection in `folder`: EnvironmentError when anyone
// but root could change it (or a folder above it), UsageError when there
// is none or it is not one of this contest.
RunJournal read_bisection_journal(const std::filesystem::path& folder);

// The bisection in `folder` (absolute) taken on from its journal, as its
// state has it (`contest bisect --continue`, and a --boot part's end): only
// a bisection across reboots (UsageError for one in guests). A failure
// before the bisection took its state is kept in its state as its failure
// too: nobody watches the unit.
BisectionDriven continue_bisection(const std::filesystem::path& folder,
                                   const std::string& containment, Progress& progress);

}  // namespace contest::drive
