#pragma once
// `contest bisect`: the commit between GOOD and BAD that changed a
// responsiveness figure, found with a stated sureness. First the ends,
// measured in interleaved rounds until they differ beyond noise on the
// measure (bisect_measure.h) or are refused saying what the rounds could
// see; then `git bisect` (git_bisect.h), each step's commit measured in
// rounds interleaved with both ends and classed like good or like bad by a
// sequential test (contest/analysis/bisect_decision.h), more rounds while it
// cannot tell, skipped when it does not build, none of its runs come back,
// or it stays undecided past the bound.
//
// Every batch of rounds (the ends', each step's) is one run of `contest
// run`'s loop over the labels good, bad and tested, each a kernel given as
// TREE@COMMIT: the place's (--kernel's guests, built and cached by kbuild
// like any), with a stop rule that asks the decision after each round. The
// driver holds no loop of its own: TakeRounds is that run, and the tests
// give it a fake backend through the same loop.
//
// What it leaves in its results folder: ends/ and step-NN-<commit>/ (each a
// run's result files, per label), bisect.log (`git bisect log`) and
// bisect.json (the state: every step's evidence, the answer), rewritten
// after every step, from which a rerun resumes (docs/bisect.md).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/bisect/bisection_text.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"

namespace contest::bisect {

struct BisectOptions {
    std::filesystem::path tree;  // the user's work tree
    std::string good, bad;       // the ends' commits, resolved
    // The ends' own config options (.config lines), every commit of the
    // bisection built with them (kernel_ref.h's %OPTIONS).
    std::vector<std::string> options;
    BisectMeasure measure;
    BisectRule rule;
    std::filesystem::path results;  // the bisection's folder
    std::filesystem::path workdir;  // contest's: bisect/ in it holds the clone
    std::string place = "kernel";   // where the rounds run, as the record says it
    // --boot: a batch spans reboots and the contests that take them
    // (boot_batches.h), so a batch's folder is taken up where it was left,
    // not set aside as a guests' batch cut short is.
    bool across_reboots = false;
    std::vector<std::string> run_words;  // recorded for contest bisect --continue
};

using StopRule = std::function<std::string(unsigned round, const std::vector<ResultFile>& files)>;

// One batch: `kernels` (good, bad[, tested], each LABEL=TREE@COMMIT) in up
// to max_rounds interleaved rounds into `folder`, stopped early by `stop`;
// the labels' files in the order given. StepFailed when a kernel does not
// build (the tested one is then skipped; an end's ends the bisection).
using TakeRounds = std::function<std::vector<ResultFile>(
    const std::vector<KernelSpec>& kernels, const std::filesystem::path& folder,
    unsigned max_rounds, const StopRule& stop)>;

// The bisection, resumed from its state when the results folder holds one
// of the same question. Its exit code: 0 with a first bad commit, 1 when
// the ends cannot be told apart or only skipped commits are left.
BisectState run_bisection(const BisectOptions& options, const TakeRounds& take, Progress& progress);

// The bisection is being taken by another contest (a part of it under way
// across reboots, another command on its folder): no failure of its own.
struct BisectionBusy : UsageError {
    using UsageError::UsageError;
};

// `why` kept in the state in `results` as its failure (BisectState::failure),
// when it holds one: what a --continue that failed before its bisection
// could take its state says to `contest post`.
void record_bisection_failure(const std::filesystem::path& results, const std::string& why);

}  // namespace contest::bisect
