#pragma once
// Saves the results database is owed (docs/history.md, "When the database
// is away"). The result file is the truth; the database is a copy of it. A
// save that cannot reach the database (a server restarted, a network blip,
// a disk full) is not lost: the file's path and SHA-256 are written to a
// list in the results folder, `.history-owed`, and each later save to
// that database, the next start of a command that writes to it, and
// `contest history sync` bring the files in. Each file is owed once, as it
// stands at its latest save: a later save of it replaces its entry (its
// bytes hold every run of the earlier ones).
//
// The list is read as untrusted (any user who can write the results folder
// can write it): bounded in size and entries, each entry checked, a bad
// one dropped. Readers and writers of one folder take its lock file first.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/history/owed_list.h"

namespace contest::history {

// The list's file in a results folder, and its lock.
inline constexpr const char* kOwedFile = ".history-owed";
inline constexpr const char* kOwedLock = ".history-owed.lock";
// The saves owed to `database` (all when nullopt) in a results folder; none
// when the folder has no list. Takes the folder's lock while it reads.
std::vector<OwedSave> owed_saves(const std::filesystem::path& results_dir,
                                 const std::optional<std::string>& database = std::nullopt);

// `file` (absolute) owed to `database`: its entry added or replaced.
// EnvironmentError when the list cannot be written.
void owe_save(const std::filesystem::path& results_dir, const std::string& database,
              const std::filesystem::path& file, const std::string& sha256, const std::string& now);

// `file`'s entry for `database` removed, if it has one. Writes nothing when
// the list has no such entry.
void forget_owed_save(const std::filesystem::path& results_dir, const std::string& database,
                      const std::filesystem::path& file);

struct OwedPaid {
    int brought_in = 0;             // files imported (or found in already)
    int runs = 0;                   // their runs
    int gone = 0;                   // files no longer there (or unreadable): dropped, said
    int still_owed = 0;             // left on the list (the database failed again)
    std::vector<std::string> said;  // one line each: a file dropped and why
    std::string failure;            // the database's error that stopped it; "" when none did
};

// Every save the folder's list owes to db brought in, each in its own
// transaction, and taken off the list as it goes. A database error stops it
// (`failure`; the rest stay owed); a file gone or unreadable is dropped.
OwedPaid pay_owed_saves(HistoryDb& db, const std::filesystem::path& results_dir,
                        const std::string& now);

}  // namespace contest::history
