#include "contest/history/history_sink.h"

#include "contest/history/import.h"
#include "contest/history/owed_saves.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest::history {

namespace fs = std::filesystem;

HistorySink::HistorySink(DbTarget target, fs::path results_dir)
    : target_(std::move(target)), results_dir_(std::move(results_dir)) {}

HistorySink::~HistorySink() {
    if (failures_ == 0) return;
    try {
        const std::size_t owed = owed_saves(results_dir_, target_.shown).size();
        if (owed > 0)
            warn(std::to_string(owed) + " save(s) owed to " + target_.shown + " (listed in " +
                 printable((results_dir_ / kOwedFile).string()) +
                 "): the next run's save, or contest history sync, brings them in");
    } catch (const std::exception& e) {
        warn(e.what());
    }
}

void HistorySink::try_save(const ResultFile& file, const fs::path& path, const std::string& text) {
    if (!db_) {
        db_ = std::make_unique<HistoryDb>(target_, OpenFor::writing);
        // What earlier saves (this run's or another's) could not bring in
        // comes first: each is a file as it stands now.
        const OwedPaid paid = pay_owed_saves(*db_, results_dir_, utc_timestamp());
        for (const auto& line : paid.said) warn(line);
        if (!paid.failure.empty()) throw EnvironmentError(paid.failure);
        if (paid.brought_in > 0)
            say(std::to_string(paid.brought_in) + " owed save(s) brought into " + target_.shown);
    }
    ResultFile stored = file;
    stored.path = path;
    db_->guarded("saving " + printable(path.string()),
                 [&] { return import_result(*db_, stored, text, utc_timestamp()); });
}

void HistorySink::saved(const ResultFile& file, const fs::path& given,
                        const std::string& text) noexcept {
    const fs::path path = fs::absolute(given).lexically_normal();
    try {
        try_save(file, path, text);
        if (failing_) {
            say("the results database " + target_.shown + " is back; saves go on");
            failing_ = false;
        }
        forget_owed_save(results_dir_, target_.shown, path);
    } catch (const std::exception& e) {
        // The connection may be half-gone: the next save connects anew.
        db_.reset();
        ++failures_;
        try {
            owe_save(results_dir_, target_.shown, path, sha256_hex(text), utc_timestamp());
        } catch (const std::exception& owe) {
            warn(std::string(owe.what()) + "; this file's save is not owed either (contest " +
                 "history import adds it later)");
        }
        if (!failing_)
            warn(std::string(e.what()) + "; the save is owed and tried again at the next one (" +
                 "contest history sync brings owed saves in)");
        failing_ = true;
    }
}

}  // namespace contest::history
