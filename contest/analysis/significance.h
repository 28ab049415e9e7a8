#pragma once
// Which differences the report calls differences: the tests behind the marks,
// the notes and the verdict, judged as one family.
#include "contest/analysis/report_model.h"

namespace contest {

// The tests behind the marks as one family: adjusted p-values, and what is
// significant (adjusted p below alpha, effect at least min_effect_pct).
void judge_significance(ReportModel& model);

}  // namespace contest
