#pragma once
// The results database as a second sink of `contest run` (docs/history.md):
// each time a label's file is saved, the file as it now stands replaces its
// earlier save in the database, in one transaction, so the database holds
// what the files hold, run by run, and a later `contest history import` of
// the finished file finds it already in (the same bytes).
#include <filesystem>
#include <memory>
#include <string>

#include "contest/history/history_db.h"
#include "contest/result/result_sink.h"

namespace contest::history {

class HistorySink : public ResultSink {
  public:
    // The database is opened (made, migrated) at the first save, not before:
    // a run that saves nothing leaves no database behind.
    explicit HistorySink(DbTarget target);
    ~HistorySink() override;

    // A failure (the file is not a database, the server is down, the disk
    // is full) is said once as a warning, and the sink stops there: the
    // runs are in their files, which `contest history import` takes later.
    void saved(const ResultFile& file, const std::filesystem::path& path,
               const std::string& text) noexcept override;

  private:
    DbTarget target_;
    std::unique_ptr<HistoryDb> db_;
    bool given_up_ = false;
};

}  // namespace contest::history
