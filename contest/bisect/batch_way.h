#pragma once
// How a bisection's batches are taken at its place: the one seam between
// the stepper (bisection.h), which says what a batch is, and where its
// rounds run. A batch is whole (a guests' run, asked its stop rule after
// each round, in this contest; one cut short taken on from its run's
// journal) or in parts (across reboots: each part a run started and left to
// the machine, whose rounds the next contest reads back, until the rule
// decides). The stepper asks the way what the batch needs next, and is
// given its files once it is over, whichever it is.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/bisect/bisect_state.h"
#include "contest/result/result_file.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"

namespace contest::bisect {

// A batch's stop rule: asked after each round of the batch's files so far,
// "" to go on, else why it stops (the decision's).
using StopRule = std::function<std::string(unsigned round, const std::vector<ResultFile>& files)>;

// What the bisection needs run next.
struct BatchNeed {
    std::vector<KernelSpec> kernels;  // good, bad[, tested], each TREE@COMMIT[%OPTIONS]
    std::filesystem::path folder;     // where the run writes: the batch's, or its part's
    unsigned rounds = 0;              // at most
    // Asked after each round (a whole batch); a part's rounds all run,
    // and the rule is asked on them when the next contest takes the batch.
    StopRule stop;
    // In parts: a part, its run started and left to the machine (the
    // bisection goes on when the run's end hands its journal over).
    bool part = false;
    // A whole batch cut short before, taken on from its run's journal
    // (batch_files.h, interrupted_run): its rounds not taken are run into
    // its files. Unset: the batch is a new run into `folder`.
    std::optional<std::filesystem::path> take_on;
};

// A batch under way: the ends' (no step) or a step's.
struct Batch {
    std::vector<KernelSpec> kernels;
    std::filesystem::path folder;
    unsigned max_rounds = 0;
    std::optional<BisectStep> step;
};

class BatchWay {
  public:
    virtual ~BatchWay() = default;
    // Whether a batch (and the bisection) spans contests: its time is then
    // counted from its start, not summed over this contest's.
    virtual bool spans_contests() const = 0;
    // The folder of the batch `name` begun in `results`: fresh, or the one
    // a contest before left, to be taken on.
    virtual std::filesystem::path begin(const std::filesystem::path& results,
                                        const std::string& name, Progress& progress) = 0;
    // What the batch needs run next; nullopt when it is over, its files
    // then in `files`.
    virtual std::optional<BatchNeed> need(const Batch& batch, const StopRule& stop,
                                          std::vector<ResultFile>& files) = 0;
    // The need ran (a part: was started): the batch's files once it is
    // over; nullopt while it goes on in other contests.
    virtual std::optional<std::vector<ResultFile>> ran(const Batch& batch) = 0;
    // The batch ended (closed, or its kernel did not build).
    virtual void ended() {}
};

// In parts (across reboots), or whole.
std::unique_ptr<BatchWay> batch_way(bool in_parts);

}  // namespace contest::bisect
