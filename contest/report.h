#pragma once
// Tables from result files: the classic contest layout and its exporters.
// One block per load (contest's order), one row per label; Time is the mean
// wall time of successful runs, Ratio that over the label's own no_load mean.
#include <optional>
#include <string>
#include <vector>

#include "contest/result_file.h"

namespace contest {

struct ReportOptions {
    std::string format = "text";         // text | markdown | csv | json
    std::optional<std::string> baseline; // label; default the first label seen
    bool stats = false;                  // --stats: extra columns in text
    double alpha = 0.05;                 // significance level
};

// The whole report as it goes to stdout. Throws UsageError for a bad format.
std::string render_report(const std::vector<ResultFile>& files, const ReportOptions& options);

}  // namespace contest
