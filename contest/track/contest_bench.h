#pragma once
// The track's bench on contest's own commands: each measurement a process
// of this very binary (/proc/self/exe), so a point is built, booted and
// measured exactly as `contest run --kernel` does it, a bisection is
// `contest bisect`'s (which resumes itself from its state), and the track
// holds no run loop of its own. Each run's output is kept in its folder's
// contest.log; a run's words are the track's after its own.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/track/track_bench.h"
#include "contest/track/track_options.h"

namespace contest::track {

struct ContestBenchSettings {
    std::filesystem::path tree;
    std::vector<std::string> run_words;
    unsigned point_rounds = 3, confirm_rounds = 5;
    std::string measure;  // WHAT:LOAD, the bisection's
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
    // --boot: each run across reboots of this machine (`contest run
    // --boot`, `contest bisect --boot`): started, then asked again at the
    // track's next start until it is over.
    bool boot = false;
    std::filesystem::path binary = "/proc/self/exe";
};

// The settings a track's question gives (its tree, run words, rounds,
// measure and --boot), the bounds left at none.
ContestBenchSettings bench_settings_of(const TrackOptions& options);

class ContestBench : public TrackBench {
  public:
    explicit ContestBench(ContestBenchSettings settings) : s_(std::move(settings)) {}
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
    // `contest run` of kernels (each a --kernel=LABEL=TREE@COMMIT word) in
    // `rounds` interleaved rounds into `folder`, with the track's words.
    std::vector<std::string> run_of(const std::vector<std::string>& kernels, unsigned rounds,
                                    const std::filesystem::path& folder) const;
    std::string kernel(const std::string& label, const std::string& commit) const {
        return std::string(s_.boot ? "--boot=" : "--kernel=") + label + "=" + s_.tree.string() +
               "@" + commit;
    }
    // The files of `labels` in a --boot run's folder once it is over;
    // AcrossReboots while it goes on, PointFailed when it ended without
    // them (`code`: its start's exit code, when this process started it).
    // The files of `labels` from a run of `kernels` into `folder` (started
    // here unless it goes on by itself); PointFailed saying `what` exited
    // how when one is missing.
    std::vector<ResultFile> run_files(const std::vector<std::string>& kernels,
                                      const std::vector<std::string>& labels, unsigned rounds,
                                      const std::filesystem::path& folder, const std::string& what);
    std::vector<ResultFile> boot_run_files(const std::filesystem::path& folder,
                                           const std::vector<std::string>& labels,
                                           std::optional<int> code) const;
    ContestBenchSettings s_;
};

}  // namespace contest::track
