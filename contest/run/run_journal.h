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
// anything runs on it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "contest/run/boot_options.h"
#include "contest/run/run_config.h"

namespace contest {

inline constexpr const char* kRunJournalName = ".run-journal.json";
// 2: config.vm.duet and config.start_barrier (--duet).
inline constexpr int kRunJournalSchema = 2;
inline constexpr std::uintmax_t kMaxRunJournalBytes = 4u << 20;

struct RunJournal {
    // Resolved: its seed set, its workdirs absolute. Not held: the caller's
    // stop rule (contest bisect's, a function), the containment (each
    // step's own) and the opened workdirs (each step opens its own).
    RunConfig config;
    std::string started_at;  // UTC, when the run started
    // A run of batches across reboots (contest bisect --boot): how each
    // batch's --boot run boots its kernels. Unset for every other run.
    std::optional<BootRunOptions> boot;
};

std::string run_journal_text(const RunJournal& journal);

// UsageError naming `where` and the field's path when text is not a
// journal of this contest's schema (run_journal_text.cpp, the codec alone).
RunJournal run_journal_from_text(const std::string& text, const std::string& where);

// Reads the journal at path: a regular file (not a link) of at most
// kMaxRunJournalBytes (EnvironmentError otherwise), its config one a start
// would take (check_run_options, check_place; a UsageError otherwise).
RunJournal read_run_journal(const std::filesystem::path& path);
void write_run_journal(const std::filesystem::path& path, const RunJournal& journal);

}  // namespace contest
