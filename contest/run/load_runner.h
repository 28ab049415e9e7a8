#pragma once
// One load, running: its process group, its shared counters, and samples of
// both taken at exactly the moments the orchestrator asks for.
#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "contest/sys/process.h"
#include "loads/load.h"
#include "loads/registry.h"

namespace contest {

struct LoadSample {
    std::chrono::steady_clock::time_point at;
    std::uint64_t units = 0;
    std::uint64_t secondary = 0;
    double cpu_s = 0;  // user+sys of every process of the load so far
};

// The work and CPU of a load between two samples, in display units.
struct LoadWindow {
    double units = 0;      // in LoadInfo::unit
    double secondary = 0;  // in LoadInfo::secondary_unit
    double cpu_pct = 0;    // (user+sys)/wall x 100, as time(1) reports it
    double seconds = 0;
};
LoadWindow load_window(const LoadInfo& info, const LoadSample& from, const LoadSample& to);

// A private folder for one load under the workdir (0700), removed with
// everything in it when this goes out of scope. remove_all does not follow
// symlinks, so nothing outside the folder is touched.
class PrivateDir {
  public:
    PrivateDir(const std::filesystem::path& parent, const std::string& name);
    ~PrivateDir();
    PrivateDir(const PrivateDir&) = delete;
    PrivateDir& operator=(const PrivateDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

class RunningLoad {
  public:
    // Forks the load's process (its own group) and starts it.
    RunningLoad(const LoadInfo& info, Load& load);
    ~RunningLoad();  // stops and reaps the group
    RunningLoad(const RunningLoad&) = delete;
    RunningLoad& operator=(const RunningLoad&) = delete;

    LoadSample sample() const;
    // Why the load is not running any more (its own reason, or how it
    // died), or nullopt while it is alive. Does not reap.
    std::optional<std::string> failure() const;
    void stop();
    pid_t pgid() const { return group_.pgid(); }

  private:
    const LoadInfo& info_;
    LoadCounters* counters_;
    GroupGuard group_;
};

// The machine facts a load sizes itself from, read now.
LoadEnv make_load_env(const std::filesystem::path& dir, const LoadOptions& options);

}  // namespace contest
