#pragma once
// Tables from result files: the classic contest layout and its exporters.
// One block per load (contest's order), one row per label; Time is the mean
// wall time of successful runs, Ratio that over the label's own no_load mean.
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/model_options.h"
#include "contest/result/result_file.h"

namespace contest {

// The model's options (baseline, alpha, correction, minimum effect, --by-host)
// and how the report renders it.
struct ReportOptions : ModelOptions {
    std::string format = "text";  // an exporter's name (exporters.h)
    bool stats = false;           // --stats: extra columns in text
    // --perf, --psi: blocks of the counters and pressure after the table
    // (observe_tables.h).
    bool perf = false, psi = false;
    // Print the model's warnings (noise, too few runs, fingerprints that
    // differ) to stderr, one "contest: warning: ..." line each.
    bool print_warnings = true;
    bool latency_only = false;  // --latency: only the latency blocks
};

// The whole report as it goes to stdout. Throws UsageError for a bad format,
// an unknown baseline or no files.
std::string render_report(const std::vector<ResultFile>& files, const ReportOptions& options);

// The result files under `paths` (files and folders) for report and compare.
// A malformed or unreadable file among good ones is named on stderr, one line
// each, and skipped; when nothing readable is left, throws UsageError naming
// the path.
std::vector<ResultFile> read_results_or_fail(const std::vector<std::string>& paths);

}  // namespace contest
