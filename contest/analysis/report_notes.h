#pragma once
// The notes under a report's table: how Ratio was computed, which test
// compared each row with the baseline, and loads that did not load.
#include "contest/analysis/report_model.h"

namespace contest {

// model.notes: the Ratio method per load, the pairing against the baseline,
// loads whose Ratio is not above 1 beyond noise.
void add_notes(ReportModel& model);

}  // namespace contest
