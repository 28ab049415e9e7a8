#pragma once
// `contest compare`'s view: two kernels side by side, load by load, with the
// significance of every difference and a plain verdict, as text, markdown,
// csv or json.
#include <string>

#include "contest/report/report_model.h"

namespace contest {

// The model holds exactly two labels, the baseline first. `format`: text,
// markdown, csv or json; anything else is a UsageError.
std::string format_compare(const ReportModel& model, const std::string& format = "text");

}  // namespace contest
