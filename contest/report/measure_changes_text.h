#pragma once
// What else changed (contest/analysis/measure_changes.h) as the formats show
// it: each change in words, the section's heading and its text.
#include <string>
#include <vector>

#include "contest/analysis/measure_changes.h"
#include "contest/analysis/report_model.h"

namespace contest {

// "on new, the time some task was stalled on I/O (PSI io some) was 2.30x base's";
// for an unknown measure, the same by its name.
std::string measure_change_line(const MeasureChange& c);

// The section as text: its heading (the tests used, the correction), then
// per load what changed and what one side only recorded; "" without loads.
std::string measure_changes_heading(const std::vector<LoadMeasureChanges>& changes,
                                    const ReportModel& model);
std::string measure_changes_text(const std::vector<LoadMeasureChanges>& changes,
                                 const ReportModel& model);
// "4 of 10 measures changed beyond noise".
std::string measure_changes_count(const LoadMeasureChanges& c);

}  // namespace contest
