#pragma once
// The track's bench on contest's own commands: each measurement a process
// of this very binary (/proc/self/exe), so a point is built, booted and
// measured exactly as `contest run --kernel` does it, a bisection is
// `contest bisect`'s (which resumes itself from its state), and the track
// holds no run loop of its own. Each run's output is kept in its folder's
// contest.log; a run's words are the track's after its own.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/track/track_bench.h"

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
    std::filesystem::path binary = "/proc/self/exe";
};

class ContestBench : public TrackBench {
  public:
    explicit ContestBench(ContestBenchSettings settings) : s_(std::move(settings)) {}
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
        return "--kernel=" + label + "=" + s_.tree.string() + "@" + commit;
    }
    ContestBenchSettings s_;
};

}  // namespace contest::track
