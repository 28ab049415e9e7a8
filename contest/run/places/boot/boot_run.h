#pragma once
// `contest run --boot LABEL=KERNEL ...`, the boot place's steps: kernels
// compared on this machine, each booted once a round in the plan's shuffled
// order. The state on disk (boot/boot_state.h) is the run's list of turns
// and its boots, the boot_run section of the run's journal (one file, one
// write a step); each step is one contest: the start plans and checks
// everything, writes the journal and asks for the first reboot; after every boot the unit
// (boot/boot_unit.h) runs --boot-continue, whose step reads the state, takes
// the turn this boot is for (boot_steps.h: the reboot place's hooks around
// the one driver's loop, run_driver.h; boot_turn.h: the turn's runs) and ends by asking for the
// next turn's reboot, or the machine's own kernel after the last.
// docs/boot.md.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/boot/boot_options.h"
#include "contest/boot/boot_state.h"
#include "contest/result/result_file.h"
#include "contest/run/places/boot/boot_steps.h"
#include "contest/run/places/boot/boot_turn.h"
#include "contest/run/plan/run_config.h"
#include "contest/sys/progress.h"

namespace contest {

// Plans and checks everything (UsageError, EnvironmentError), writes the
// state, installs the unit and boots the first turn's kernel.
BootStep start_boot_run(const RunConfig& config, const BootRunOptions& options, Progress& progress);

// --boot-continue JOURNAL, after a boot: the turn of the run the journal
// holds (its config, and its state); `containment` is how this step holds
// the runs' processes.
BootStep continue_boot_run(const std::filesystem::path& journal, const std::string& containment,
                           Progress& progress);

// --boot-abort: the unit removed, the state marked aborted. root: where
// the unit is looked for when the state cannot be read (--boot-root).
int abort_boot_run(const std::filesystem::path& results, const std::filesystem::path& root = "/");

}  // namespace contest
