#pragma once
// What in the runs or the machines makes the figures less than they seem:
// warnings (to stderr), one line each (without a prefix) in model.warnings.
// The fingerprint warnings are in fingerprint.h.
#include "contest/analysis/report_model.h"

namespace contest {

// Runs that did not finish ok, per label and load.
void warn_about_failed_runs(ReportModel& model);
// Time varied by more than kNoisyCv.
void warn_about_noise(ReportModel& model);
// Other work, hypervisor steal, a CPU that changed speed.
void warn_about_other_work(ReportModel& model);
// Too few runs to judge significance.
void warn_about_few_runs(ReportModel& model);

}  // namespace contest
