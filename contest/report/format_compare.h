#pragma once
// `contest compare`'s view: two kernels side by side, load by load, with the
// significance of every difference and a plain verdict, in each of the
// exporters' formats (outputs.h).
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// The model holds exactly two labels, the baseline first.
std::string compare_text(const ReportModel& model);
std::string compare_markdown(const ReportModel& model);
std::string compare_csv(const ReportModel& model);
std::string compare_json(const ReportModel& model);

}  // namespace contest
