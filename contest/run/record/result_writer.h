#pragma once
// Where `contest run` keeps its results: the folders checked before
// anything is measured, each new file's name, and the saves after every run
// (atomic: a reader or a crash sees the last good save, never half of one).
#include <filesystem>
#include <stdexcept>
#include <string>

#include "contest/result/result_file.h"
#include "contest/result/result_sink.h"

namespace contest {

// A save of the result file that failed (no space, read-only, permission):
// the suite stops there and keeps its runs in memory.
struct SaveFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Saves a result file at its path, whole, each time it is asked to, then
// hands what it wrote to the run's other sinks (the results database).
class ResultWriter {
  public:
    explicit ResultWriter(std::filesystem::path path, ResultSinks sinks = {})
        : path_(std::move(path)), sinks_(std::move(sinks)) {}
    void save(const ResultFile& result) const;  // throws SaveFailed
    // Ctrl-C, SIGTERM, SIGHUP: what finished is saved (complete: false) and
    // said on stderr; with no finished run there is no file to save.
    void save_interrupted(const ResultFile& result) const;
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
    ResultSinks sinks_;
};

// Checks, before anything is prepared, that result files can be written in
// dir: a temp file is made and removed there, and the real cause (read-only
// file system, permission, no space) is named when it cannot.
void check_results_folder(const std::filesystem::path& dir);

// A new file under dir/label/, named after the start time: STAMP.json, or
// STAMP-2.json, ... when that name, or its journal's, is taken.
std::filesystem::path new_result_path(const std::filesystem::path& dir, const std::string& label,
                                      const std::string& started_at);

// The journal of the run whose (first) result file is `result`, beside it:
// its name the file's with .run-journal for .json (sys/journal_file.h's
// naming rule; results/LABEL/STAMP.json:
// results/LABEL/STAMP.run-journal), so one a run, as the file's name is, and
// never read as a result (report and import read .json files).
std::filesystem::path run_journal_beside(const std::filesystem::path& result);
// The result file beside a run's journal (run_journal_beside's inverse).
std::filesystem::path result_beside_journal(const std::filesystem::path& journal);

}  // namespace contest
