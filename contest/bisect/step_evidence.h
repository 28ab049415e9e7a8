#pragma once
// What a batch's files say, label by label, whatever the place wrote them
// (bisection.h reads them back with read_batch): the ends' rounds, the
// label a build failure is of, which label brought no figure back, and what
// the tested commit's build and the guests' boots took, kept in its step.
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "contest/vm/kernel_image.h"

namespace contest::bisect {

// A label's file among a batch's, by label; nullptr when it has none.
const ResultFile* file_of(const std::vector<ResultFile>& files, const std::string& label);

// The ends' rounds of a batch's files (good's and bad's, paired by round);
// none when either file is missing. `incomplete`: rounds without both.
std::vector<EndsRound> batch_ends(const std::vector<ResultFile>& files, const BisectMeasure& m,
                                  unsigned& incomplete);

// Which label's kernel a build failure is of: the build writes its log
// in the batch's (or part's) folder of the label, and names the label's
// option first (--kernel LABEL=..., --boot LABEL: ...); "" when neither says.
std::string failed_label(const StepFailed& e, const std::vector<KernelSpec>& kernels);

// The labels whose runs of the batch's last round all failed, as "the
// tested commit brought no figure back in round 4 (boot_failed: why)";
// "" when each has one that ran.
std::string lacking_in_last_round(const std::vector<ResultFile>& files);

// Whether a label of `kernels` has no run that ran (ok) in `files`.
bool lacks_a_figure(const std::vector<ResultFile>& files, const std::vector<KernelSpec>& kernels);

std::vector<std::string> labels_of(const std::vector<KernelSpec>& kernels);

// Whether the files ran in emulated guests (--kernel under TCG records
// config.vm.emulated in every file).
bool emulated(const std::vector<ResultFile>& files);

// What the tested commit's build took, from its file's build record
// (config.kernel.build, or config.boot.build across reboots), and the
// guests' boots of the step's files (config.vm.boots), kept in `step`.
void note_build(const std::vector<ResultFile>& files, BisectStep& step);
void note_boots(const std::vector<ResultFile>& files, BisectStep& step);

}  // namespace contest::bisect
