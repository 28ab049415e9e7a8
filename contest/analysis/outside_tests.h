#pragma once
// Every test of the report model taken again net of outside work
// (outside_work.h): Time and Ratio against the baseline, and each load's
// Ratio to its no_load, with the rounds paired as the raw tests pair them
// (by --vary group and round between labels, by file and round within one)
// and a term for the side where they are not. Under --adjust outside the net
// test becomes the verdict of record and the raw one goes beside it.
#include "contest/analysis/report_model.h"

namespace contest {

// After the raw tests (compare_cells), before significance is judged.
void add_outside_adjustments(ReportModel& model);

// The test `raw` on the net basis of `fit` (applied).
Test net_test(const Test& raw, const OutsideFit& fit);

}  // namespace contest
