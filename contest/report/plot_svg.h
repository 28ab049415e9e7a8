#pragma once
// A grouped bar chart of Ratio per load and label, with 95% CI error bars, as
// one self-contained SVG document (no scripts, fonts or images from outside).
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

std::string plot_svg(const ReportModel& model);

}  // namespace contest
