#pragma once
// What in the runs or the machines makes the figures less than they seem:
// warnings (to stderr), one line each (without a prefix) in model.warnings.
// The fingerprint warnings are in fingerprint.h.
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// A coefficient of variation above this says the machine was noisy.
inline constexpr double kNoisyCv = 0.03;
// Other work on the machine (mean over a label's no_load and cacherun runs)
// and hypervisor steal (over all its runs) above these, in % of one CPU,
// take enough from a compile to move its time by more than the loads do.
inline constexpr double kBusyOthersPct = 10;
inline constexpr double kBusyStealPct = 5;
// The same compile's user time varies by ~1% on a steady CPU; beyond this
// (CV over a label's no_load and cacherun runs) the CPU's speed changed.
inline constexpr double kCpuSpeedCv = 0.03;

// Runs that did not finish ok, per label and load.
void warn_about_failed_runs(ReportModel& model);
// Time varied by more than kNoisyCv.
void warn_about_noise(ReportModel& model);
// Other work, hypervisor steal, a CPU that changed speed.
void warn_about_other_work(ReportModel& model);
// Too few runs to judge significance.
void warn_about_few_runs(ReportModel& model);
// The labels whose runs ran in emulated guests, in model.emulated_labels,
// and a warning that says so.
void note_emulated_labels(ReportModel& model);

// "the runs of a, b ran in QEMU guests under TCG ...": why the times of
// model.emulated_labels are not real hardware's, for the warning and the
// banner of the formats people read.
std::string emulated_sentence(const ReportModel& model);

}  // namespace contest
