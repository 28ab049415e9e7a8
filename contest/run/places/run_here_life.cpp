#include "contest/run/places/run_here_life.h"

#include <iostream>
#include <utility>

#include "contest/latency/latency_why.h"
#include "contest/run/record/label_run.h"
#include "contest/run/rounds/run_driver.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// A run taken here from its first turn left to its last: its workdirs
// opened once (and refused now when others could plant links in them),
// its processes held, the probes' stale tracing left by a killed contest
// removed.
RunOutcome run_here(RunConfig config, std::optional<OpenedJournal> opened, Progress& progress,
                    JournalKept keep) {
    config.workload.opened_workdir = config.load.opened_workdir =
        Workdir::open(config.workload.workdir);
    const auto containment = RunContainment::set_up();
    config.containment = containment->description();
    for (const auto& stale : latency::LatencyWhy::remove_stale()) say("removed " + stale);
    return advance_run(config, std::move(opened), progress, keep);
}

class RunHereLife final : public PlaceLife {
  public:
    LifeStep start(const LifeStart& start, Progress& progress) override {
        return step_of_outcome(run_here(start.config, std::nullopt, progress,
                                        start.keep_journal ? JournalKept::yes : JournalKept::no));
    }

    // The run the journal holds (the interrupted result file's, or the
    // journal given), from that journal alone.
    LifeStep advance(const fs::path& journal, Progress& progress) override {
        OpenedJournal opened = open_run_journal(journal);
        RunConfig config = opened.journal.config;
        config.resume = opened.journal.results;
        return step_of_outcome(
            run_here(std::move(config), std::move(opened), progress, JournalKept::yes));
    }

    int status(const fs::path& results) override {
        std::cout << "nothing under way in " << results.string()
                  << ": a run on this host or in its guests is its contest's while it runs\n";
        return kExitOk;
    }

    int abort(const fs::path& results) override {
        throw UsageError("nothing to abort in " + results.string() +
                         ": a run on this host or in its guests stops with its contest "
                         "(interrupted, it goes on with --resume)");
    }
};

}  // namespace

std::shared_ptr<PlaceLife> run_here_life() {
    return std::make_shared<RunHereLife>();
}

LifeStep step_of_outcome(const RunOutcome& outcome) {
    LifeStep step;
    step.finished = label_results(outcome.labels);
    for (const auto& label : outcome.labels) step.saved.push_back(label.path());
    step.save_failure = outcome.save_failure;
    step.exit_code =
        outcome.failed_runs > 0 || !outcome.save_failure.empty() ? kExitSomeRunsFailed : kExitOk;
    return step;
}

}  // namespace contest
