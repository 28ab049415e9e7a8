#include "contest/history/history_sink.h"

#include "contest/history/import.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/sys/utc_timestamp.h"

namespace contest::history {

HistorySink::HistorySink(DbTarget target) : target_(std::move(target)) {}

HistorySink::~HistorySink() = default;

void HistorySink::saved(const ResultFile& file, const std::filesystem::path& path,
                        const std::string& text) noexcept {
    if (given_up_) return;
    try {
        if (!db_) db_ = std::make_unique<HistoryDb>(target_, OpenFor::writing);
        ResultFile stored = file;
        stored.path = std::filesystem::absolute(path).lexically_normal();
        db_->guarded("saving " + printable(path.string()),
                     [&] { return import_result(*db_, stored, text, utc_timestamp()); });
    } catch (const std::exception& e) {
        given_up_ = true;
        db_.reset();
        warn(std::string(e.what()) + "; this run's results are in their files only (contest " +
             "history import adds them later)");
    }
}

}  // namespace contest::history
