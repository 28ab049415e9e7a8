#pragma once
// What a report says besides its figures. Warnings (to stderr): what in the
// runs or the machines makes the figures less than they seem, one line each
// (without a prefix) in model.warnings. Notes (under the table): how Ratio was
// computed, and loads that did not load.
#include "contest/report/report_model.h"

namespace contest {

// The machines (or workloads) of two labels differ in more than the kernel.
void warn_about_fingerprints(ReportModel& model);
// Runs that did not finish ok, per label and load.
void warn_about_failed_runs(ReportModel& model);
// Time varied by more than kNoisyCv.
void warn_about_noise(ReportModel& model);
// Other work, hypervisor steal, a CPU that changed speed.
void warn_about_other_work(ReportModel& model);
// Too few runs to judge significance.
void warn_about_few_runs(ReportModel& model);
// One label's files from different machines (CPU model, CPU count, RAM,
// kernel release); with --by-host the rows are already apart.
void warn_about_mixed_machines(ReportModel& model, bool by_host);

// The tests behind the marks as one family: adjusted p-values, and what is
// significant (adjusted p below alpha, effect at least min_effect_pct).
void judge_significance(ReportModel& model);

// model.notes: the Ratio method per load, loads whose Ratio is not above 1
// beyond noise.
void add_notes(ReportModel& model);

}  // namespace contest
