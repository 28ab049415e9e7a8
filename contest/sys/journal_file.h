#pragma once
// A run's journal file (.run-journal.json): one versioned JSON object of
// sections, each read and written by the layer that owns it: the run's
// config and start (run/run_journal.h), its plan of turns at the top level
// (sys/journal_turns.h), and a --boot run's state, how it boots and the
// boots it saw (boot/boot_state.h, the `boot_run` section), and a
// bisection's state (bisect/bisect_state.h, the `bisection` section, in the
// journal of its batches' config). One file a run, replaced whole and atomically once a step, so a
// crash leaves the last step's file or the next one's, never two files that disagree.
//
// Read as untrusted text: a regular file (no link followed), bounded, JSON,
// of this contest's schema (take_schema, sys/json_record.h); each section
// is then checked field by field by its owner.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

inline constexpr const char* kRunJournalName = ".run-journal.json";
// The sections other layers than the run's own read and write.
inline constexpr const char* kBootRunSection = "boot_run";
inline constexpr const char* kBisectionSection = "bisection";
// 2: a --boot run's state is the journal's boot_run section (it was a
// file of its own, .boot-state.json, beside a journal of schema 1).
// 3: config.vm.duet and config.start_barrier (--duet).
// 4: the turns and next_turn at the top level (they were boot_run's).
// 5: results, each label's file; config.resume a file per label (a run of
// several labels, --vary's or --kernel's, is resumed from its journal).
// A journal of another schema is refused in one line naming both
// (take_schema), not read: a --boot run under way is stepped by its own
// copy of contest (results/.boot/contest), which wrote it, so only a
// contest installed over it meanwhile and run by hand meets one.
inline constexpr int kRunJournalSchema = 5;
inline constexpr std::uintmax_t kMaxRunJournalBytes = 4u << 20;

// The journal's JSON without its schema (UsageError naming `where` when it
// is not JSON, not an object, or of another schema).
nlohmann::json journal_json_from_text(const std::string& text, const std::string& where);
// The text of a journal's JSON, its schema added.
std::string journal_text(nlohmann::json j);

// The journal at path read as journal_json_from_text reads its text: a
// regular file (not a link) of at most kMaxRunJournalBytes. A path naming
// anything else, or nothing, is a UsageError naming `what` and the path; a
// file that cannot be read (permission, I/O) an EnvironmentError.
nlohmann::json read_journal_json(const std::filesystem::path& path, const std::string& what);

}  // namespace contest
