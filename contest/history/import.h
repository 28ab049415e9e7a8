#pragma once
// `contest history import`: result files into the database, each file in
// one transaction, known by the SHA-256 of its bytes so that importing it
// again (or a copy of it elsewhere) adds nothing.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/result/result_file.h"

namespace contest::history {

enum class Imported { added, already_in };

// One result file, `text` its bytes as read or written (kept packed, and
// known by their SHA-256), with its machine, workload and
// kernel (made once each), its runs, their measures and their probes'
// percentiles. `imported_at` is recorded as given (ISO 8601 UTC). An earlier
// save of the same file (the same path, label and start, other bytes: its
// run went on since, or was resumed) is replaced, so no run counts twice;
// file.path is best absolute, as import_paths and the run's sink give it.
Imported import_result(HistoryDb& db, const ResultFile& file, const std::string& text,
                       const std::string& imported_at);

struct ImportTally {
    int added = 0, already_in = 0, runs = 0;
    std::vector<std::string> skipped;  // one line each: the file or folder and why
};

// Every result file under paths (read_result_paths' walk), read and checked
// by contest/result's reader; a file that cannot be read or is malformed is
// skipped and named in the tally, and the others go on.
ImportTally import_paths(HistoryDb& db, const std::vector<std::filesystem::path>& paths,
                         const std::string& imported_at);

}  // namespace contest::history
