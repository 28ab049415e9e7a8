#pragma once
// The report model (report_model.h) made from result files: their runs
// pooled into cells, compared with the baseline and judged, and the
// warnings and notes under the table; and --runs auto's measures of a run
// so far, each read from the model its files make.
#include <vector>

#include "contest/analysis/model_options.h"
#include "contest/analysis/report_model.h"
#include "contest/result/result_file.h"

namespace contest {

// Throws UsageError when --baseline names no label of the files, or when
// there are no files at all.
ReportModel build_report_model(const std::vector<ResultFile>& files, const ModelOptions& options);

// --runs auto's measure of a result file so far: the widest half-width of a
// Ratio's 95% CI over its loads (no_load aside), in % of that Ratio;
// infinity while some load's is unknown (fewer than two rounds).
double widest_ratio_ci_pct(const ResultFile& file);

// --runs auto's measure of a comparison so far (the result files of one run,
// its labels): the largest minimum detectable effect of Time of every label
// against the first, over every load, as compare --min-effect 0 would state
// it (not floored at a minimum effect); infinity while some is unknown
// (fewer than kMinRunsForSignificance rounds). `adjust_outside`: of the
// tests net of outside work where the adjustment applies (else the raw).
double widest_time_mde_pct(const std::vector<ResultFile>& files, bool adjust_outside = false);

}  // namespace contest
