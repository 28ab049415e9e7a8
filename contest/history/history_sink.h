#pragma once
// The results database as a second sink of `contest run` (docs/history.md):
// each time a label's file is saved, the file as it now stands replaces its
// earlier save in the database, in one transaction, so the database holds
// what the files hold, run by run, and a later `contest history import` of
// the finished file finds it already in (the same bytes).
//
// A save that cannot reach the database is owed (owed_saves.h): its file is
// put on the results folder's list, and every later save tries again,
// first bringing in what the list owes this database. The run goes on
// whatever the database does: its runs are in their files.
#include <filesystem>
#include <memory>
#include <string>

#include "contest/history/history_db.h"
#include "contest/result/result_sink.h"

namespace contest::history {

class HistorySink : public ResultSink {
  public:
    // The database is opened (made, migrated) at the first save, not before:
    // a run that saves nothing leaves no database behind. results_dir holds
    // the list of owed saves.
    HistorySink(DbTarget target, std::filesystem::path results_dir);
    // Says how many saves are still owed to the database, if any.
    ~HistorySink() override;

    // A failure (the file is not a database, the server is down, the disk
    // is full) is said at the first one and when the database comes back;
    // the file's save is owed until a later save reaches the database.
    void saved(const ResultFile& file, const std::filesystem::path& path,
               const std::string& text) noexcept override;

  private:
    void try_save(const ResultFile& file, const std::filesystem::path& path,
                  const std::string& text);

    DbTarget target_;
    std::filesystem::path results_dir_;
    std::unique_ptr<HistoryDb> db_;
    bool failing_ = false;  // the last save failed
    int failures_ = 0;      // saves that failed in this run
};

}  // namespace contest::history
