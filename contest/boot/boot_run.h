#pragma once
// `contest run --boot LABEL=KERNEL ...`: kernels compared on this machine,
// each booted once a round in the plan's shuffled order; the run resumes
// after every boot (the unit of boot_unit.h runs --boot-continue), takes
// that turn's runs on this host (HostRounds) into the label's file, and
// boots the next turn's kernel; after the last, the machine's own kernel.
// docs/boot.md.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/boot/boot_state.h"
#include "contest/result/result_file.h"
#include "contest/run/run_config.h"
#include "contest/sys/progress.h"

namespace contest {

struct BootRunOptions {
    BootMethod method = BootMethod::kexec;
    unsigned boot_max = 0;  // 0: one a turn and one back
    bool stop_on_failure = false;
    std::filesystem::path root = "/";  // where the unit is installed
};

// What one step of the run leaves: contest's exit code, and the labels'
// files when the run ended (for the table).
struct BootStep {
    int exit_code = 0;
    std::vector<ResultFile> finished;
};

// The state's path in a results folder (absolute, its links resolved).
std::filesystem::path boot_state_path(const std::filesystem::path& results);

// Plans and checks everything (UsageError, EnvironmentError), writes the
// state, installs the unit and boots the first turn's kernel.
BootStep start_boot_run(const RunConfig& config, const BootRunOptions& options, Progress& progress);

// --boot-continue STATE, after a boot; config_of makes a RunConfig of the
// run's recorded words.
using ConfigOf = std::function<RunConfig(const std::vector<std::string>& words)>;
BootStep continue_boot_run(const std::filesystem::path& state, const ConfigOf& config_of,
                           Progress& progress);

// --boot-status: the state of the run in results, said on stdout.
int print_boot_status(const std::filesystem::path& results);
// --boot-abort: the unit removed, the state marked aborted. root: where
// the unit is looked for when the state cannot be read (--boot-root).
int abort_boot_run(const std::filesystem::path& results, const std::filesystem::path& root = "/");

}  // namespace contest
