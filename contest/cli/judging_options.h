#pragma once
// The options `report` and `compare` share: how significance is judged.
#include <string>
#include <vector>

#include "contest/report/report_options.h"
#include "contest/sys/option_table.h"

namespace contest {

// The judging options' names as given, until check_judging_options parses them.
struct JudgingNames {
    std::string correction = "holm";
    std::string adjust = "none";
};

// What --adjust takes: "none" (the raw tests are the verdict) or "outside"
// (the tests net of outside work are); anything else is a UsageError.
bool parse_adjust(const std::string& adjust);

// The rows of --alpha, --correction, --min-effect, --adjust, into `options`.
std::vector<TableOption> judging_option_rows(ReportOptions& options, JudgingNames& names);
// Throws UsageError naming the option that is out of range.
void check_judging_options(ReportOptions& options, const JudgingNames& names);
// UsageError unless format is one of report's (--format of report).
void check_table_format(const std::string& format);
// UsageError unless format is one of compare's: report's, lkp, normalized.
void check_compare_format(const std::string& format);

}  // namespace contest
