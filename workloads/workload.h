#pragma once
// The workload interface: the thing contest times. Prepare once (untimed),
// clean before each run (untimed), then time one command.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/sys/workdir.h"

namespace contest {

class Progress;

struct Command {
    std::vector<std::string> argv;
    std::filesystem::path cwd;
    std::vector<std::string> env_overrides;  // "NAME=value", added to contest's environment
};

struct WorkloadOptions {
    std::string kind;               // synthetic | kernel | command
    std::filesystem::path workdir;  // scratch space (trees, logs)
    std::optional<Workdir>
        opened_workdir;                   // workdir, opened and checked once; unset: opened on use
    unsigned jobs = 0;                    // make -jN; 0 means 4 x online CPUs
    unsigned synthetic_size = 100;        // synthetic: translation units
    std::filesystem::path kernel_source;  // kernel: tarball or tree; empty = newest in /usr/src
    std::string kernel_config = "tinyconfig";
    std::string workload_cmd, prepare_cmd, clean_cmd;  // command: shell-like strings
};

class Workload {
  public:
    virtual ~Workload() = default;
    virtual std::string name() const = 0;
    // Once per contest run, untimed. Throws EnvironmentError when it cannot,
    // StepFailed when one of its steps (unpack, configure, a command) fails.
    virtual void prepare(Progress& progress) = 0;
    // Before every timed run, untimed. Throws StepFailed when the step fails.
    virtual void clean() = 0;
    // The command to time.
    virtual Command timed_command() const = 0;
    // Where the workload's own output goes (kept; its tail is shown on failure).
    virtual std::filesystem::path log_path() const = 0;
    // The source tree the tar loads archive.
    virtual std::filesystem::path source_tree() const = 0;
    // Everything needed to repeat it, for the result file's config.
    virtual nlohmann::json describe() const = 0;
};

// Empties (or creates) a log before a run, so that the log always holds the
// latest run's output and its tail is that run's failure, never an older one.
void reset_log(const std::filesystem::path& log);
// UsageError unless config is tinyconfig, allnoconfig, defconfig or a file.
void check_kernel_config(const std::string& config);

// contest_parallelism() (contest/sys/machine.h) unless jobs is set.
unsigned effective_jobs(unsigned jobs);

}  // namespace contest
