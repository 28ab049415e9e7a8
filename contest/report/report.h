#pragma once
// Tables from result files: the classic contest layout and its exporters.
// One block per load (contest's order), one row per label; Time is the mean
// wall time of successful runs, Ratio that over the label's own no_load mean.
#include <string>
#include <vector>

#include "contest/report/report_options.h"
#include "contest/result/result_file.h"

namespace contest {

// The whole report as it goes to stdout. Throws UsageError for a bad format,
// an unknown baseline or no files.
std::string render_report(const std::vector<ResultFile>& files, const ReportOptions& options);

// The result files under `paths` (files and folders) for report and compare.
// A malformed or unreadable file among good ones is named on stderr, one line
// each, and skipped; when nothing readable is left, throws UsageError naming
// the path.
std::vector<ResultFile> read_results_or_fail(const std::vector<std::string>& paths);

}  // namespace contest
