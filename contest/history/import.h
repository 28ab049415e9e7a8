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

enum class Imported {
    added,
    already_in,  // the same bytes
    superseded,  // a further save of the same run is in (it stays)
};

// One result file, `text` its bytes as read or written (kept packed, and
// known by their SHA-256), with its machine, workload and
// kernel (made once each), its runs, their measures and their probes'
// percentiles. `imported_at` is recorded as given (ISO 8601 UTC). A run is
// one run wherever its file lies: its saves (the same machine, label and
// start, workload and kernel, other bytes: its run went on since, or was resumed, or a copy was
// fetched while it ran) are one, the complete one, else the one with the
// most runs, else the one imported last; the others are removed, so no run
// counts twice and an older save never replaces a further one. Two imports
// of one run at once wait for each other. file.path is best absolute, as
// import_paths and the run's sink give it.
Imported import_result(HistoryDb& db, const ResultFile& file, const std::string& text,
                       const std::string& imported_at);

struct ImportTally {
    int added = 0, runs = 0;
    int already_in = 0;                // the same bytes, or a further save of the same run
    std::vector<std::string> skipped;  // not result files: the file or folder and why, a line each
    std::vector<std::string> refused;  // result files the database refused: the file and why
};

// Every result file under paths (read_result_paths' walk), read and checked
// by contest/result's reader; a file that cannot be read or is malformed is
// skipped and named in the tally, and the others go on. So is a file the
// database refuses (a row it will not take): its transaction leaves nothing,
// and the next file goes in. EnvironmentError when the database is gone
// (a server that no longer answers) or the machine fails (a SQLite file
// locked past its timeout, a full disk): the files after would fail alike.
ImportTally import_paths(HistoryDb& db, const std::vector<std::filesystem::path>& paths,
                         const std::string& imported_at);

}  // namespace contest::history
