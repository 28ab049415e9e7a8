#pragma once
// A --boot run's steps, the reboot place's hooks around the one driver's
// loop (run_driver.h, drive_turns: the journal's next turn until none is
// left or the place yields): a step records the boot it runs in, takes the
// turn this boot is for (its kernel checked first), and yields once the
// next turn's kernel is armed; its end asks for the machine's default
// kernel, or ends the run when back in it (boot_run.h starts the run and
// hands each boot's step here). Each move writes the state before it asks
// the machine for a reboot, so that the next step (or --boot-status) reads
// what this one did.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/result/result_file.h"
#include "contest/run/places/boot/boot_turn.h"
#include "contest/sys/progress.h"

namespace contest {

// What one step of the run leaves: contest's exit code, the labels'
// files when the run ended (for the table), and when this step ended a
// run a bisection owns (done or stopped, after a boot), that bisection's
// folder (BootState::owner), whose journal goes on next.
struct BootStep {
    int exit_code = 0;
    std::vector<ResultFile> finished;
    std::string owner;
};

// The first boot, asked from the kernel the run starts in (k). An
// interrupt before the reboot is asked leaves nothing armed: the kernel
// unloaded or the one-shot entry cleared, the unit and the copies removed,
// the state aborted (and Interrupted thrown on).
BootStep first_boot_step(const std::filesystem::path& state_path, BootState& state,
                         JournalTurns& turns, const RunningKernel& k, const RunJournal& journal,
                         Progress& progress);

// A step after a boot (k): the boot recorded, then its turn taken (or
// recorded boot_failed when the boot is not the label's kernel's), or the
// way back, a detour or a run with no turn left ended; and the next boot
// asked.
BootStep step_after_boot(const std::filesystem::path& state_path, BootState& state,
                         JournalTurns& turns, const RunningKernel& k, const RunJournal& journal,
                         Progress& progress);

// The end of the run: the unit and contest's copy removed, the releases
// contest built removed (unless kept), the files marked complete when
// `phase` is done, the state and the turns kept (--boot-status) in `phase`.
BootStep finish_run(const std::filesystem::path& state_path, BootState& state,
                    const JournalTurns& turns, BootPhase phase, const std::string& note);

}  // namespace contest
