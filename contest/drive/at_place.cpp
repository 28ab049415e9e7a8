#include "contest/drive/at_place.h"

#include <algorithm>
#include <utility>

#include "contest/run/places/boot/boot_run.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/rounds/run_driver.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"

namespace contest::drive {
namespace {

// A run cut short: its journal opened, as --resume opens it (its config
// the journal's, checked against the files it continues), and refused
// when it is a run of other kernels than `kernels`.
OpenedJournal taken_on_run(const std::filesystem::path& take_on,
                           const std::vector<KernelSpec>& kernels, const RunConfig& given) {
    OpenedJournal opened = open_run_journal(take_on);
    const auto& its = opened.journal.config.kernels;
    if (!std::equal(its.begin(), its.end(), kernels.begin(), kernels.end(),
                    [](const KernelSpec& a, const KernelSpec& b) {
                        return a.label == b.label && a.image == b.image;
                    }))
        throw UsageError("contest bisect: " + printable(take_on.string()) +
                         ": a run of other kernels than this batch's: remove " +
                         printable(given.results_dir.string()) + " and run again");
    return opened;
}

}  // namespace

AtPlace advance_at_place(RunJournal journal, const std::optional<std::filesystem::path>& take_on,
                         const bisect::StopRule& stop, Progress& progress) {
    RunConfig rc = std::move(journal.config);
    if (journal.boot) {
        start_boot_run(rc, *journal.boot, progress);
        return AtPlace::yields;
    }
    std::optional<OpenedJournal> opened;
    if (take_on) {
        opened = taken_on_run(*take_on, rc.kernels, rc);
        const std::string containment = rc.containment;
        rc = opened->journal.config;
        rc.resume = opened->journal.results;
        rc.containment = containment;
    }
    rc.stop_rule = stop;
    rc.workload.opened_workdir = rc.load.opened_workdir = Workdir::open(rc.workload.workdir);
    const RunOutcome out = advance_run(rc, std::move(opened), progress);
    if (!out.save_failure.empty()) throw SaveFailed(out.save_failure);
    return AtPlace::ended;
}

}  // namespace contest::drive
