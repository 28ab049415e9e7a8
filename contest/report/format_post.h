#pragma once
// `contest post`: a plain-text mail body for a kernel list, in one of three
// shapes. contest's own: a subject line, the machine and kernel facts, the
// classic table, the latency block, the verdicts with adjusted p-values and
// what else changed, and the command line that made the runs. lkp: the
// 0-day robot's columns (post_lkp.h). normalized: the blocks scheduler
// series on LKML give each test, normalised to the baseline
// (post_normalized.h). Every shape judges the same tests of one model; no
// line is wider than kPostColumns, labels too long for a shape's columns
// shortened the same way everywhere and listed in a legend (post_parts.h).
#include <string>
#include <vector>

#include "contest/report/post_lkp.h"
#include "contest/report/post_parts.h"
#include "contest/report/report_options.h"
#include "contest/result/result_file.h"

namespace contest {

// The shapes, as the outputs table (outputs.h) names them for --style.
enum class PostStyle { contest, lkp, normalized };

// Every label of `files`; each label but the baseline (options.baseline,
// else the one that ran first) is judged against it. Throws UsageError as
// render_report does.
std::string format_post(const std::vector<ResultFile>& files, const ReportOptions& options,
                        PostStyle style = PostStyle::contest);

// Each shape, as the outputs table holds it.
std::string post_contest_shape(const std::vector<ResultFile>& files, const ReportOptions& options);
std::string post_lkp_shape(const std::vector<ResultFile>& files, const ReportOptions& options);
std::string post_normalized_shape(const std::vector<ResultFile>& files,
                                  const ReportOptions& options);

// The lkp shape with its table's mark of `followed` and its verdict on it
// (post_lkp.h), as contest track's mail has it.
std::string post_lkp_followed(const std::vector<ResultFile>& files, const ReportOptions& options,
                              const FollowedMeasure& followed);

}  // namespace contest
