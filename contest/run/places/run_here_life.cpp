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
// its processes held (in the caller's containment when it holds one, the
// config's), the probes' stale tracing left by a killed contest removed.
RunOutcome run_here(RunConfig config, std::optional<OpenedJournal> opened, Progress& progress,
                    JournalKept keep, const fs::path& journal = {}) {
    config.workload.opened_workdir = config.load.opened_workdir =
        Workdir::open(config.workload.workdir);
    const auto containment = RunContainment::unless_held(config.containment);
    for (const auto& stale : latency::LatencyWhy::remove_stale()) say("removed " + stale);
    return advance_run(config, std::move(opened), progress, keep, journal);
}

// The run a journal holds as --resume opens it (the interrupted result
// file's, or the journal given), from that journal alone: its config the
// journal's, but for what no journal holds (the caller's stop rule and
// containment, `caller`'s).
RunOutcome run_on(const fs::path& journal, const RunConfig& caller, Progress& progress) {
    OpenedJournal opened = open_run_journal(journal);
    RunConfig config = opened.journal.config;
    config.resume = opened.journal.results;
    config.stop_rule = caller.stop_rule;
    config.containment = caller.containment;
    return run_here(std::move(config), std::move(opened), progress, JournalKept::yes);
}

// Whether the journal at path plans turns already (a run cut short that
// goes on), not a run's config alone.
bool plans_turns(const fs::path& journal) {
    return !read_run_journal(journal).turns.list.empty();
}

class RunHereLife final : public PlaceLife {
  public:
    // A new run, its journal named beside its first result file or the one
    // its caller gave (start.journal); or the run that journal holds, cut
    // short, taken on.
    LifeStep start(const LifeStart& start, Progress& progress) override {
        if (!start.journal.empty() && plans_turns(start.journal))
            return step_of_outcome(run_on(start.journal, start.config, progress));
        return step_of_outcome(run_here(start.config, std::nullopt, progress,
                                        start.keep_journal ? JournalKept::yes : JournalKept::no,
                                        start.journal));
    }

    LifeStep advance(const fs::path& journal, Progress& progress) override {
        return step_of_outcome(run_on(journal, RunConfig{}, progress));
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
