#pragma once
// `contest post`: a plain-text mail body for a kernel list. A subject line,
// the machine and kernel facts, the classic table, the latency block, the
// verdicts with adjusted p-values and what else changed, and the command
// line that made the runs; no line wider than kPostColumns, labels too long
// for the tables shortened the same way everywhere and listed in a legend.
#include <cstddef>
#include <string>
#include <vector>

#include "contest/report/report.h"
#include "contest/result/result_file.h"

namespace contest {

inline constexpr std::size_t kPostColumns = 76;

// Every label of `files`; each label but the baseline (options.baseline,
// else the one that ran first) is judged against it. Throws UsageError as
// render_report does.
std::string format_post(const std::vector<ResultFile>& files, const ReportOptions& options);

}  // namespace contest
