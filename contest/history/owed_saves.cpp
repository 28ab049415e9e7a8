#include "contest/history/owed_saves.h"

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "contest/history/import.h"
#include "contest/result/result_file.h"
#include "contest/result/result_paths.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/progress.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::history {

namespace fs = std::filesystem;

namespace {

// How long a reader or writer of the list waits for another one's lock: the
// lock is held only to read or write the list, never across a database call.
constexpr auto kLockWait = std::chrono::seconds(30);

FileLock folder_lock(const fs::path& results_dir) {
    const auto until = std::chrono::steady_clock::now() + kLockWait;
    for (;;) {
        if (auto lock = FileLock::try_take(results_dir / kOwedLock)) return std::move(*lock);
        if (std::chrono::steady_clock::now() > until)
            throw EnvironmentError(printable((results_dir / kOwedLock).string()) +
                                   ": held by another contest for " +
                                   std::to_string(kLockWait.count()) + " s");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

// The list as the folder holds it; none when there is no list. A list that
// cannot be read (a link, a folder, too large) is said once and taken as
// empty: the next write replaces it (the rename replaces a link, never
// follows it).
std::vector<OwedSave> read_owed_list(const fs::path& results_dir) {
    const fs::path path = results_dir / kOwedFile;
    const RegularFileRead r =
        read_regular_file_at(AT_FDCWD, path.c_str(), kMostOwedBytes, /*follow_link=*/false);
    if (r.refusal == RegularFileRead::Refusal::cannot_open && r.error == ENOENT) return {};
    if (r.refusal != RegularFileRead::Refusal::none) {
        warn(printable(path.string()) + ": " + r.why() + "; its owed saves are not read");
        return {};
    }
    std::size_t dropped = 0;
    std::vector<OwedSave> saves = parse_owed_saves(r.text, &dropped);
    if (dropped > 0)
        warn(printable(path.string()) + ": " + std::to_string(dropped) +
             " entr(ies) not understood, left out");
    return saves;
}

void write_owed_list(const fs::path& results_dir, const std::vector<OwedSave>& saves) {
    const fs::path path = results_dir / kOwedFile;
    if (saves.empty()) {
        std::error_code ec;
        fs::remove(path, ec);
        return;
    }
    write_file_atomically(path, owed_saves_text(saves));
}

bool same_entry(const OwedSave& s, const std::string& database, const std::string& file) {
    return s.database == database && s.file == file;
}

}  // namespace

std::vector<OwedSave> owed_saves(const fs::path& results_dir,
                                 const std::optional<std::string>& database) {
    std::error_code ec;
    if (!fs::exists(results_dir / kOwedFile, ec)) return {};
    const FileLock lock = folder_lock(results_dir);
    std::vector<OwedSave> saves = read_owed_list(results_dir);
    if (database) std::erase_if(saves, [&](const OwedSave& s) { return s.database != *database; });
    return saves;
}

void owe_save(const fs::path& results_dir, const std::string& database, const fs::path& file,
              const std::string& sha256, const std::string& now) {
    const FileLock lock = folder_lock(results_dir);
    std::vector<OwedSave> saves = read_owed_list(results_dir);
    std::string since = now;
    for (const auto& s : saves)
        if (same_entry(s, database, file.string())) since = s.since;
    std::erase_if(saves, [&](const OwedSave& s) { return same_entry(s, database, file.string()); });
    saves.push_back({database, file.string(), sha256, since});
    if (saves.size() > kMostOwed) {
        warn(printable((results_dir / kOwedFile).string()) + ": more than " +
             std::to_string(kMostOwed) +
             " saves owed; the oldest dropped (contest history import of the folder brings "
             "every file in)");
        saves.erase(saves.begin(), saves.end() - kMostOwed);
    }
    write_owed_list(results_dir, saves);
}

void forget_owed_save(const fs::path& results_dir, const std::string& database,
                      const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(results_dir / kOwedFile, ec)) return;
    const FileLock lock = folder_lock(results_dir);
    std::vector<OwedSave> saves = read_owed_list(results_dir);
    if (std::erase_if(saves,
                      [&](const OwedSave& s) { return same_entry(s, database, file.string()); }))
        write_owed_list(results_dir, saves);
}

OwedPaid pay_owed_saves(HistoryDb& db, const fs::path& results_dir, const std::string& now) {
    OwedPaid paid;
    const std::string database = db.target().shown;
    const std::vector<OwedSave> owed = owed_saves(results_dir, database);
    for (std::size_t i = 0; i < owed.size(); ++i) {
        const OwedSave& s = owed[i];
        std::string text;
        ResultFile file;
        try {
            // The file as it stands now: a save after the failed one holds
            // every run the failed one did.
            text = read_result_text(s.file);
            file = result_from_text(text, printable(s.file));
        } catch (const UsageError& e) {
            ++paid.gone;
            paid.said.push_back(std::string(e.what()) + ": no longer owed");
            forget_owed_save(results_dir, database, s.file);
            continue;
        }
        file.path = s.file;
        try {
            db.guarded("importing " + printable(s.file),
                       [&] { return import_result(db, file, text, now); });
        } catch (const std::exception& e) {
            paid.still_owed = static_cast<int>(owed.size() - i);
            paid.failure = e.what();
            return paid;
        }
        ++paid.brought_in;
        paid.runs += static_cast<int>(file.runs.size());
        forget_owed_save(results_dir, database, s.file);
    }
    return paid;
}

}  // namespace contest::history
