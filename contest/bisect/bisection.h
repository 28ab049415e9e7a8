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
// TREE@COMMIT, at the bisection's place. The bisection is a stepper with no
// run of its own: it says what batch it needs next (BatchNeed: the labels'
// kernels, the folder, the rounds at most, and a stop rule that is a plain
// function of the files so far), its driver (drive/bisection_drive.h, or a
// test's fake place) runs it there and says so (ran), and the stepper reads
// the batch's files back with read_batch (batch_files.h), whatever the
// place; until it answers. Whole batches or parts are batch_way.h's, the
// one seam: across reboots (--boot) a batch is one or more parts, each a
// `contest run --boot` of the batch's labels into <batch>/part-N, started
// and left to the machine: the run's unit takes its turns, one reboot each,
// and its last step hands the run's end over to the bisection that owns it
// (the part's journal names it), whose stepper finds the parts' files
// there. The first part has what the decision needs to begin (the ends'
// test three rounds, a step's two), each later part one round more, until
// the rule decides or the bound is reached.
//
// What it leaves in its results folder: ends/ and step-NN-<commit>/ (each a
// run's result files and journal, per label), bisect.log (`git bisect log`)
// and its journal, .run-journal: its batches' config and its state
// (every step's evidence, the answer; bisect_state.h), the state rewritten
// after every step, from which a rerun resumes (docs/bisect.md).
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/bisect/batch_way.h"
#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/bisect/bisection_busy.h"
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
    // A batch is parts, each a run that goes on in other contests (--boot's,
    // across reboots: batch_way.h), not one run in this contest.
    bool in_parts = false;
    // The words after --, as given at the start: recorded, and compared
    // with a rerun's (never parsed again: each batch's config is the
    // bisection's journal's, drive/bisection_drive.h).
    std::vector<std::string> run_words;
};

class Bisection {
  public:
    // The bisection in options.results, resumed from its state when it
    // holds one of the same question (UsageError when another's), held by
    // this contest alone (BisectionBusy) until destroyed; `progress` outlives it.
    Bisection(const BisectOptions& options, Progress& progress);
    ~Bisection();
    Bisection(const Bisection&) = delete;
    Bisection& operator=(const Bisection&) = delete;

    // The batch to run next; nullopt once the bisection has answered
    // (state()). Across reboots, BisectionBusy while a part's run is under way.
    std::optional<BatchNeed> next();
    // The batch next() asked for ran (a part: was started), or failed with
    // `failure`: a StepFailed kernel that does not build skips the tested
    // commit (an end's ends the bisection, thrown); anything else is
    // thrown again, kept in the state as its failure. A guests' batch's
    // files are read back from its folder.
    void ran(std::exception_ptr failure = nullptr);
    // Where it stands: once next() gives nullopt, the answer. Its exit code:
    // 0 with a first bad commit, 1 when the ends cannot be told apart or
    // only skipped commits are left.
    const BisectState& state() const;

  private:
    struct Stepper;
    std::unique_ptr<Stepper> stepper_;
};

// `why` kept in the state in `results` as its failure (BisectState::failure),
// when it holds one: what a --continue that failed before its bisection
// could take its state says to `contest post`.
void record_bisection_failure(const std::filesystem::path& results, const std::string& why);

}  // namespace contest::bisect
