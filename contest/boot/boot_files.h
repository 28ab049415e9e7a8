#pragma once
// What a --boot run keeps on this machine besides its result files, and
// who may touch it: the state's path in the results folder, the lock a
// step holds while it steps the run, contest's copy and the kernels'
// copies in results/.boot (what each later turn boots, whatever happens to
// the files as given), and the one-run-a-machine rule. The steps
// themselves (which turn, which boot next) are the run's: run/places/boot/boot_run.h.
#include <cstddef>
#include <filesystem>
#include <optional>

#include "contest/boot/boot_state.h"
#include "contest/sys/file_lock.h"

namespace contest {

// results as a --boot run names it: absolute, its links resolved.
std::filesystem::path boot_run_folder(const std::filesystem::path& results);
// The state's path in a results folder (absolute, its links resolved).
std::filesystem::path boot_state_path(const std::filesystem::path& results);

// One contest steps a boot run at a time: the step (the first, or the
// unit's after a boot) holds this lock, beside the state, until it ends or
// the machine goes down; --boot-abort stops the holder and then takes it.
// Its name is the journal's with .lock for .json (.run-journal.lock).
std::filesystem::path boot_lock_path(const std::filesystem::path& state);
// The step's lock, or nullopt when another contest holds it (said).
std::optional<FileLock> take_step_lock(const std::filesystem::path& state);
// The lock, once the step under way (if any) has stopped: SIGTERM to its
// holder, whose runs unwind as on Ctrl-C. EnvironmentError when it holds
// on past two minutes.
FileLock stop_step_under_way(const std::filesystem::path& state);
// The step's lock file, removed by its holder once the state is written for
// the last time: whoever opened it before then finds, once they lock it,
// that it is no longer the lock (FileLock::try_take), and takes the new one.
void remove_lock_file(const std::filesystem::path& state);

// The files a label's kernel is booted from: for kexec contest's copies,
// made in results/.boot/ when the run starts, so that a kernel rebuilt, an
// initrd regenerated or a /tmp emptied during the run does not change what
// its later turns boot (the state keeps the files as given: the result
// records them); an entry's own for grub and systemd-boot.
std::filesystem::path image_copy(const BootState& state, std::size_t label);
std::filesystem::path initrd_copy(const BootState& state, std::size_t label);
BootLabel booted_files(const BootState& state, std::size_t label);

// What the run put outside its state and result files: the unit (when it
// is this run's: another's may have replaced a unit left behind), contest's
// copy and the kernels' copies (results/.boot/, then the folder when empty).
void remove_run_files(const std::filesystem::path& state_path, const BootState& state);

// UsageError: the run whose state is `path` is under way (`phase`).
[[noreturn]] void refuse_run_under_way(const std::filesystem::path& path, BootPhase phase);
// One --boot run a machine: its unit (there is one) names the live run's
// state. UsageError when that run is under way, or its state cannot be
// read; a unit left by a finished run, or whose state is gone, is replaced.
void refuse_another_live_run(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace contest
