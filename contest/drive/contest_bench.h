#pragma once
// The track's bench on contest's own commands: each measurement a process
// of this very binary (/proc/self/exe), so a point is built, booted and
// measured exactly as `contest run --kernel` does it, a bisection is
// `contest bisect`'s (which resumes itself from its state), and the track
// holds no run loop of its own. Each process's output is kept in its
// folder's contest.log.
//
// A point and a confirmation are runs of the track's one config, parsed of
// its run words once at its start (ContestBenchSettings::run): each is a
// journal the bench makes in the run's folder (that config with the run's
// kernels, rounds and folder, and no results database: the track stores
// the point's file itself), run by `contest run --journal FILE`, whose
// result files are read back from that journal (its `results`, or for
// --boot its boot state's labels), never found by a scan of the folder.
// The track's bisection is `contest bisect` of the track's words after its
// --: it parses them once at its own start.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/run/plan/run_journal.h"
#include "contest/track/track_bench.h"
#include "contest/track/track_runs.h"

namespace contest::drive {

struct ContestBenchSettings : track::TrackRuns {
    // The config every point's and confirmation's run starts from: the
    // run words parsed once at the track's start (cli/kernel_journal.h),
    // its paths absolute; under --boot with how it boots (RunJournal::boot).
    // Its kernels, rounds, folder and sinks are each run's own.
    RunJournal run;
    // A point's run (or a confirmation's) still going after this long is
    // stopped and its point failed ("took longer than ..."); 0: no bound.
    double run_timeout_s = 0;
    // A bisection still going after this long is stopped (its state kept)
    // and its change left without an answer; 0: no bound.
    double bisect_timeout_s = 0;
    // contest bisect's --step-max-rounds for each change's bisection: a
    // step between the ends in some rounds (a figure with two values, as
    // TCG guests' rates are) needs more than its default. Unset: bisect's.
    std::optional<unsigned> bisect_step_max_rounds;
    std::filesystem::path binary = "/proc/self/exe";
};

// The journal of a run of `kernels` (LABEL, TREE@COMMIT) in `rounds`
// rounds into `folder` (made absolute), of the track's config
// (settings.run): its kernels, rounds and results folder set, the results
// database left out (the track stores a point's file once; a comparison's
// are evidence), its command line, which its files record, the words a
// person would run it with.
RunJournal track_run_journal(const ContestBenchSettings& settings,
                             const std::vector<KernelSpec>& kernels, unsigned rounds,
                             const std::filesystem::path& folder);

class ContestBench : public track::TrackBench {
  public:
    // UsageError, one line, when a point's run of `settings.run` is no run
    // `contest run --journal` would take (checked as it checks one).
    explicit ContestBench(ContestBenchSettings settings);
    bool goes_on_by_itself(const std::filesystem::path& folder) const override;
    std::filesystem::path measure_point(const std::string& commit,
                                        const std::filesystem::path& folder) override;
    std::vector<ResultFile> compare(const std::string& before, const std::string& after,
                                    const std::filesystem::path& folder) override;
    bisect::BisectState bisect(const std::string& good, const std::string& bad,
                               const std::filesystem::path& folder) override;

  private:
    // The command in `folder` (its log there): its exit code. With
    // `timeout_s`, one still running then is told to stop (TERM: its guests
    // stopped, its files kept; KILL a minute later) and PointFailed thrown.
    int run_contest(const std::vector<std::string>& words, const std::filesystem::path& folder,
                    double timeout_s = 0);
    KernelSpec kernel(const std::string& label, const std::string& commit) const {
        return {label, s_.tree.string() + "@" + commit};
    }
    // The files of `labels` from a run of `kernels` into `folder` (its
    // journal made and run here unless it goes on by itself), read from
    // the run's journal; PointFailed saying `what` exited how when one is
    // missing.
    std::vector<ResultFile> run_files(const std::vector<KernelSpec>& kernels, unsigned rounds,
                                      const std::filesystem::path& folder, const std::string& what);
    // The files of `labels` in a --boot run's folder once it is over, as
    // its boot state names them; AcrossReboots while it goes on,
    // PointFailed when it ended without them (`code`: its start's exit
    // code, when this process started it).
    std::vector<ResultFile> boot_run_files(const std::filesystem::path& folder,
                                           const std::vector<std::string>& labels,
                                           std::optional<int> code) const;
    ContestBenchSettings s_;
};

}  // namespace contest::drive
