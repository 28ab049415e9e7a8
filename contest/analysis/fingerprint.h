#pragma once
// Whether two labels ran on the same hardware and workload: the fingerprint
// fields that must agree, and the warnings when they do not.
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"

namespace contest {

// The fingerprint fields that must agree for two labels to be compared, as
// "dotted.path" names; each is skipped when either side lacks it.
const std::vector<std::string>& fingerprint_fields();

// The host a file ran on: its fingerprint's hostname; "?" where it does not say.
std::string host_of(const ResultFile& file);

// The machines (or workloads) of two labels differ in more than the kernel.
void warn_about_fingerprints(ReportModel& model);
// One label's files from different machines (CPU model, CPU count, RAM,
// kernel release); with --by-host the rows are already apart.
void warn_about_mixed_machines(ReportModel& model, bool by_host);

}  // namespace contest
