#pragma once
// A run's journal: what the run is, resolved once at its start (every
// option as the command line and its --config file gave it, merged; every
// path absolute; the seed drawn), in one versioned file that later steps
// of the run read instead of the user's words or files. A --boot run's
// steps read theirs after every reboot: no command word is parsed after
// the start, and nothing of a user's is read again (docs/boot.md).
//
// Written whole and atomically; read back as untrusted text (a regular
// file, no link followed, bounded; every field checked for its type and
// range by the one record codec, sys/json_record.h), and the config it
// holds checked again as a start checks one (check_run_options) before
// anything runs on it. The run's plan of turns is its top level
// (sys/journal_turns.h); a --boot run's journal also holds how the run
// boots and the boots it saw (boot/boot_state.h) as its boot_run section,
// which each step replaces with the turns: one file a run
// (sys/journal_file.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "contest/boot/boot_options.h"
#include "contest/boot/boot_state.h"
#include "contest/run/plan/planned_round.h"
#include "contest/run/plan/run_config.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/journal_turns.h"

namespace contest {

struct RunPlan;

struct RunJournal {
    // Resolved: its seed set, its workdirs absolute. Not held: the caller's
    // stop rule (contest bisect's, a function), the containment (each
    // step's own) and the opened workdirs (each step opens its own).
    RunConfig config;
    std::string started_at;  // UTC, when the run started
    // A run of batches across reboots (contest bisect --boot): how each
    // batch's --boot run boots its kernels, the boot layer's section
    // (boot/boot_options.h). Unset for every other run.
    std::optional<BootRunOptions> boot;
    // The run's turns, each one's status, and the next one to take (empty
    // for a journal of no plan: a bisection's batch config, a guest's turn).
    JournalTurns turns;
    // A --boot run's boot facts and its boots. Unset for every other run.
    std::optional<BootState> boot_run;
    // Each label's result file, in the plan's labels' order, as the run
    // named them before its first run (empty for a journal of no plan,
    // and a --boot run's, whose state names them).
    std::vector<std::filesystem::path> results;
};

// The run's section of its journal (sys/journal_file.h): its config,
// start, its plan of turns and its result files, each field checked by the
// record codec (run_journal_text.cpp).
extern const JournalSection<RunJournal> kRunSection;
// The run's section put in a journal, and the boot layer's sections: its
// boot options (null when it has none) and its boot facts when it has
// them; the journal's other sections kept.
void put_run_journal(JournalFile& file, const RunJournal& journal);
// The run in a journal: its section, its boot options and its boot facts, the turns checked
// against the labels (the boot facts' or the result files'); a UsageError
// naming the journal and the field when it is not one.
RunJournal run_journal_of(const JournalFile& file);

// The journal's text of the run alone (its tests, its fuzz target, and a
// new run's claim of its name, run_driver.cpp).
std::string run_journal_text(const RunJournal& journal);

// A new run's paths made absolute, as its journal keeps them (--resume
// reads them from any folder): every field the journal's record says is a
// path (v.path, run_journal_text.cpp), the guests' config aside.
void make_paths_absolute(RunConfig& config);

// The plan's rounds as a journal's turns, every one pending: a new run's
// plan (run_driver.h) and a --boot run's (boot_run.h) alike.
JournalTurns planned_turns(const RunPlan& plan);
// A journal's turn as the plan's: its loads by their place in the plan. A
// UsageError naming `where` and the load when the plan has no such load.
LabelTurn label_turn_of(const JournalTurn& turn, const RunPlan& plan, const std::string& where);

// UsageError naming `where` and the field's path when text is not a
// journal of this contest's schema (run_journal_text.cpp, the codec alone).
RunJournal run_journal_from_text(const std::string& text, const std::string& where);

// Reads the journal at path (JournalFile::read: a regular file, not a
// link, of at most kMaxRunJournalBytes), its config one a start would take
// (check_run_options, check_place; a UsageError otherwise).
RunJournal read_run_journal(const std::filesystem::path& path);
// The run written into the journal at path (made when there is none), under
// the journal's lock, its other sections (a bisection's state) kept.
void write_run_journal(const std::filesystem::path& path, const RunJournal& journal);
// A new run's journal made at path, whole, when nothing is there: false,
// and nothing made, when something is (a name another run claimed first).
bool create_run_journal(const std::filesystem::path& path, const RunJournal& journal);

}  // namespace contest
