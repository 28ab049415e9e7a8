#pragma once
// One load's life: its private folder, prepared, then started and stopped
// (once per run), its process group and shared counters sampled at exactly
// the moments the orchestrator asks for. LoadSession is the one lifecycle
// `contest run`, `contest load` and the tests use.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/sys/forked_worker.h"
#include "contest/sys/process.h"
#include "contest/sys/workdir.h"
#include "loads/load.h"
#include "loads/registry.h"

namespace contest {

struct LoadSample {
    std::chrono::steady_clock::time_point at;
    std::uint64_t units = 0;
    std::uint64_t secondary = 0;
    std::uint64_t restarts = 0;  // see LoadCounters::restarts
    double cpu_s = 0;            // user+sys of every process of the load so far
};

// The work and CPU of a load between two samples, in display units.
struct LoadWindow {
    double units = 0;      // in LoadInfo::unit
    double secondary = 0;  // in LoadInfo::secondary_unit
    double cpu_pct = 0;    // (user+sys)/wall x 100, as time(1) reports it
    double seconds = 0;
};
LoadWindow load_window(const LoadInfo& info, const LoadSample& from, const LoadSample& to);

// A private folder for one load, <workdir>/loads/<name>.<pid> (0700), made
// through the workdir's descriptor without following any link, with an owner
// marker beside it (<name>.<pid>.owner: pid and start time) so that the next
// contest can tell a killed one's leftovers. Removed with everything in it,
// never following a link, when this goes out of scope.
class PrivateDir {
  public:
    PrivateDir(const Workdir& workdir, const std::string& name);
    ~PrivateDir();
    PrivateDir(const PrivateDir&) = delete;
    PrivateDir& operator=(const PrivateDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

  private:
    Workdir workdir_;
    std::string rel_;  // loads/<name>.<pid>
    std::filesystem::path path_;
};

// What killed contests left in workdir/loads (folders whose owner is dead),
// removed. Returns one line per thing removed.
std::vector<std::string> remove_dead_load_folders(const Workdir& workdir);

// The load's process: a forked worker (its own group) that runs it, with
// its counters as the shared block. Stopped and reaped when this goes out
// of scope.
class RunningLoad {
  public:
    // Forks the load's process and starts it.
    RunningLoad(const LoadInfo& info, Load& load);
    RunningLoad(const RunningLoad&) = delete;
    RunningLoad& operator=(const RunningLoad&) = delete;

    LoadSample sample() const;
    // Why the load is not running any more (its own reason, or how it
    // died), or nullopt while it is alive. Does not reap.
    std::optional<std::string> failure() const;
    void stop() { worker_.stop(); }
    pid_t pgid() const { return worker_.pgid(); }
    std::uint64_t restarts() const {
        return worker_.block().restarts.load(std::memory_order_relaxed);
    }

  private:
    const LoadInfo& info_;
    ForkedWorker<LoadCounters> worker_;
};

// The machine facts a load sizes itself from, read now.
LoadEnv make_load_env(const std::filesystem::path& dir, const LoadOptions& options);

// A load made in its private folder (under options.workdir/loads) and
// prepared, untimed; then started, warmed up, sampled and stopped, as often
// as there are runs. Destroyed in reverse: the group is stopped and reaped,
// the load object goes, then the folder with everything in it.
class LoadSession {
  public:
    // Throws what the load's prepare() throws (EnvironmentError, UsageError).
    LoadSession(const LoadInfo& info, const LoadOptions& options);
    ~LoadSession();
    LoadSession(const LoadSession&) = delete;
    LoadSession& operator=(const LoadSession&) = delete;

    // Forks the load's group. A load that does no work (no_load, cacherun)
    // is never started: running() stays false.
    void start();
    // Lets the started load run for `seconds`, then says why it is no good:
    // it died, or (when it counts its work) it did no work in that time.
    // With no warm-up (0 s), only whether it died.
    std::optional<std::string> warm_up(double seconds);
    // After the run: why the load is no good, as failure(), and with no
    // warm-up, also when it did no work over the whole run.
    std::optional<std::string> failure_over_run() const;
    bool running() const { return running_.has_value(); }
    LoadSample sample() const { return running_->sample(); }
    // Times the running load's command was started again since start().
    std::uint64_t restarts() const { return running_ ? running_->restarts() : 0; }
    // Why the running load is not running any more, or nullopt (see RunningLoad).
    std::optional<std::string> failure() const { return running_->failure(); }
    // Stops and reaps the group (SIGTERM, then SIGKILL); a no-op when stopped.
    void stop() { running_.reset(); }
    LoadWindow window(const LoadSample& from, const LoadSample& to) const {
        return load_window(info_, from, to);
    }

    const LoadInfo& info() const { return info_; }
    // The load's facts and the values of its options: for the result file.
    nlohmann::json facts() const;
    pid_t pgid() const { return running_->pgid(); }
    const std::filesystem::path& folder() const { return dir_->path(); }
    // For the tests of what a load leaves behind: each step of the teardown alone.
    void destroy_load() {
        stop();
        load_.reset();
    }
    void remove_folder() { dir_.reset(); }

  private:
    const LoadInfo& info_;
    LoadOptions options_;
    std::optional<PrivateDir> dir_;
    std::unique_ptr<Load> load_;
    std::optional<RunningLoad> running_;
    std::optional<std::uint64_t> units_unchecked_since_;  // no warm-up: the units at the start
};

}  // namespace contest
