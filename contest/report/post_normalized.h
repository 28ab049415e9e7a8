#pragma once
// A comparison in the shape scheduler patch series on LKML give their
// results: a block a test (Time, Ratio, the load's work, each latency
// probe) with its units, which way is better and the statistic, then a row
// a load (a load's percentile, in schbench's order, for latency), every
// label's figure normalised to the baseline's, `1.00 [ -0.00]( 2.31)`: the
// normalised figure, the improvement in % and the runs' CV; the beyond-noise
// marks after it. Under the latency blocks, each label's percentiles as
// schbench prints them (`50.0th: 36 | 90.0th: 120 | ...`). For `contest
// post --style normalized` and `contest compare --format normalized`.
#include <cstddef>
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// Every label against the model's baseline, as many label columns beside
// the baseline's as fit in `columns` (a block repeats, baseline first, for
// the rest). `fits`: whether at least one label fits beside the baseline.
std::string normalized_blocks(const ReportModel& model, std::size_t columns = 76);
bool normalized_fits(const ReportModel& model, std::size_t columns = 76);

}  // namespace contest
