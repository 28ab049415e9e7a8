#pragma once
// The latency distribution of each label, per load and probe, as one
// self-contained SVG document: share of samples against latency, both axes
// on a log scale, so the tail (where loads show) is as visible as the bulk.
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// "" when no block has latency rows.
std::string latency_plot_svg(const ReportModel& model);

}  // namespace contest
