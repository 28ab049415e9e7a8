#pragma once
// The result files the database keeps (schema 3 on: each file's own bytes,
// packed), read back as contest/result's reader reads a file: what reads
// result files (the KCIDB export) reads them from the database alike.
#include <string>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/result/result_file.h"

namespace contest::history {

// Every file of each label, in the labels' order, each label's by its
// start. UsageError naming the label (and the labels there are) when the
// database has no file of it, or naming the file when its content is not
// kept (imported before schema 3: import it again) or not a result file.
std::vector<ResultFile> stored_files(HistoryDb& db, const std::vector<std::string>& labels);

}  // namespace contest::history
