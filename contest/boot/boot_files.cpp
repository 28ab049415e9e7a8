#include "contest/boot/boot_files.h"

#include <csignal>

#include <chrono>

#include "contest/boot/boot_unit.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"

namespace contest {

namespace fs = std::filesystem;

namespace {

// The most --boot-abort waits for the step under way to stop its runs.
constexpr double kAbortWaitS = 120;

}  // namespace

fs::path boot_lock_path(const fs::path& state) {
    // Named after the journal it guards (.run-journal, and an earlier
    // contest's .run-journal.json: .run-journal.lock).
    return state.parent_path() / (state.stem().string() + ".lock");
}

std::optional<FileLock> take_step_lock(const fs::path& state) {
    const fs::path lock = boot_lock_path(state);
    auto held = FileLock::try_take(lock);
    if (!held)
        say("a step of the boot run in " + state.parent_path().string() + " is under way (pid " +
            std::to_string(FileLock::holder(lock)) + "): nothing to do");
    return held;
}

FileLock stop_step_under_way(const fs::path& state) {
    const fs::path lock = boot_lock_path(state);
    const auto deadline = deadline_after(std::chrono::steady_clock::now(),
                                         std::chrono::duration<double>(kAbortWaitS));
    pid_t signalled = 0;
    for (;;) {
        if (auto held = FileLock::try_take(lock)) return std::move(*held);
        const pid_t pid = FileLock::holder(lock);
        if (pid > 0 && pid != signalled) {
            say("stopping the boot run's step under way (pid " + std::to_string(pid) + ")");
            if (::kill(pid, SIGTERM) == 0) signalled = pid;
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw EnvironmentError("the boot run's step (pid " + std::to_string(pid) +
                                   ") did not stop within " +
                                   std::to_string(static_cast<int>(kAbortWaitS)) +
                                   " s: stop it and run --boot-abort again");
        interruptible_sleep(0.2);
    }
}

fs::path image_copy(const BootState& state, std::size_t label) {
    return fs::path(state.binary).parent_path() / (std::to_string(label) + "-vmlinuz");
}

fs::path initrd_copy(const BootState& state, std::size_t label) {
    return fs::path(state.binary).parent_path() / (std::to_string(label) + "-initrd");
}

BootLabel booted_files(const BootState& state, std::size_t label) {
    BootLabel files = state.labels.at(label);
    if (state.method != BootMethod::kexec) return files;
    files.image = image_copy(state, label).string();
    if (!files.initrd.empty()) files.initrd = initrd_copy(state, label).string();
    return files;
}

void remove_run_files(const fs::path& state_path, const BootState& state) {
    remove_own_boot_unit(state.unit_root, state_path);
    std::error_code ec;
    for (std::size_t i = 0; i < state.labels.size(); ++i) {
        fs::remove(image_copy(state, i), ec);
        fs::remove(initrd_copy(state, i), ec);
    }
    fs::remove(state.binary, ec);
    fs::remove(fs::path(state.binary).parent_path(), ec);  // .boot/, when empty
}

void remove_lock_file(const fs::path& path) {
    std::error_code ec;
    fs::remove(boot_lock_path(path), ec);
}

[[noreturn]] void refuse_run_under_way(const fs::path& path, BootPhase phase) {
    throw UsageError("a --boot run is under way in " + path.parent_path().string() + " (" +
                     boot_phase_name(phase) +
                     "): see it with --boot-status, stop it with --boot-abort");
}

void refuse_another_live_run(const fs::path& root, const fs::path& path) {
    const std::optional<fs::path> named = boot_unit_state(root);
    std::error_code ec;
    if (!named || !fs::exists(*named, ec)) return;
    const std::string folder = named->parent_path().string();
    BootState other;
    try {
        other = read_boot_state(*named);
    } catch (const std::exception& e) {
        throw UsageError("the unit " + boot_unit_path(root).string() + " is a --boot run's whose " +
                         "state cannot be read (" + e.what() +
                         "): contest run --boot-abort --results " + folder + " removes it");
    }
    if (other.finished()) return;
    if (*named == path) refuse_run_under_way(path, other.phase);
    throw UsageError("another --boot run is under way on this machine, in " + folder + " (" +
                     boot_phase_name(other.phase) +
                     "); one at a time: see it with --boot-status --results " + folder +
                     ", stop it with --boot-abort");
}

fs::path boot_run_folder(const fs::path& results) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(results).lexically_normal();
    const fs::path real = fs::weakly_canonical(absolute, ec);
    return ec ? absolute : real;
}

fs::path boot_state_path(const fs::path& results) {
    return folder_journal_path(boot_run_folder(results));
}

}  // namespace contest
