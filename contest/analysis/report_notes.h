#pragma once
// The notes under a report's table: how Ratio was computed, which test
// compared each row with the baseline, and loads that did not load.
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// model.notes: the Ratio method per load, the pairing against the baseline,
// loads whose Ratio is not above 1 beyond noise.
void add_notes(ReportModel& model);

// A test's method as prose names it: "Welch's t-test", "paired t on per-round
// log differences (one --vary run)" (whatever the count of shared rounds),
// else the method as recorded.
std::string method_name(const Test& t);

}  // namespace contest
