#include "contest/drive/at_place.h"

#include <algorithm>
#include <utility>

#include "contest/run/plan/journal_life.h"
#include "contest/run/record/result_writer.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::drive {
namespace {

// UsageError when the run cut short that `take_on` holds is a run of other
// kernels than `kernels` (its config is then the one that goes on).
void check_taken_on(const std::filesystem::path& take_on, const RunConfig& batch) {
    const auto& its = read_run_journal(take_on).config.kernels;
    if (!std::equal(its.begin(), its.end(), batch.kernels.begin(), batch.kernels.end(),
                    [](const KernelSpec& a, const KernelSpec& b) {
                        return a.label == b.label && a.image == b.image;
                    }))
        throw UsageError("contest bisect: " + printable(take_on.string()) +
                         ": a run of other kernels than this batch's: remove " +
                         printable(batch.results_dir.string()) + " and run again");
}

}  // namespace

AtPlace advance_at_place(RunJournal journal, const std::optional<std::filesystem::path>& take_on,
                         const bisect::StopRule& stop, Progress& progress) {
    // The place's life, made of the batch's journal (its config, and what
    // its place keeps there: --boot's how it boots), whatever the place.
    const std::shared_ptr<PlaceLife> life = life_of_journal(journal);
    LifeStart start;
    start.config = std::move(journal.config);
    start.config.stop_rule = stop;
    if (take_on) {
        check_taken_on(*take_on, start.config);
        start.journal = *take_on;
    }
    const LifeStep step = life->start(start, progress);
    if (!step.save_failure.empty()) throw SaveFailed(step.save_failure);
    return step.yields ? AtPlace::yields : AtPlace::ended;
}

}  // namespace contest::drive
