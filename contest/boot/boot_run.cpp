#include "contest/boot/boot_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <iostream>
#include <optional>

#include "contest/boot/boot_guard.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_unit.h"
#include "contest/kbuild/built_kernels.h"
#include "contest/observe/sysinfo.h"
#include "contest/run/config_record.h"
#include "contest/run/leftovers.h"
#include "contest/run/places.h"
#include "contest/run/run_loop.h"
#include "contest/run/run_outcome.h"
#include "contest/run/run_plan.h"
#include "contest/run/run_recorder.h"
#include "contest/run/settle.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"
#include "contest/vm/kernel_image.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The most a boot waits, once up, for the machine to settle (the services
// started after it, their writeback) before its turn's runs.
constexpr double kBootSettleS = 60;

// The most --boot-abort waits for the step under way to stop its runs.
constexpr double kAbortWaitS = 120;

// One contest steps a boot run at a time: the step (the first, or the
// unit's after a boot) holds this lock, beside the state, until it ends or
// the machine goes down; --boot-abort stops the holder and then takes it.
fs::path boot_lock_path(const fs::path& state) {
    return state.parent_path() / ".boot-state.lock";
}

// The step's lock, or nullopt when another contest holds it (said).
std::optional<FileLock> take_step_lock(const fs::path& state) {
    const fs::path lock = boot_lock_path(state);
    auto held = FileLock::try_take(lock);
    if (!held)
        say("a step of the boot run in " + state.parent_path().string() + " is under way (pid " +
            std::to_string(FileLock::holder(lock)) + "): nothing to do");
    return held;
}

// The lock, once the step under way (if any) has stopped: SIGTERM to its
// holder, whose runs unwind as on Ctrl-C. EnvironmentError when it holds
// on past kAbortWaitS.
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

// How a run ends once no more turns will be taken: done when every turn
// was (measured or failed), stopped when some were left (the bound).
BootPhase end_phase(const BootState& state) {
    const bool left = std::any_of(state.turns.begin(), state.turns.end(), [](const BootTurn& t) {
        return t.status == BootTurnStatus::pending;
    });
    return left ? BootPhase::stopped : BootPhase::done;
}

// Whether the running kernel is the one the run started from.
bool in_start_kernel(const BootState& state, const RunningKernel& k) {
    return k.release == state.start_release && k.cmdline == state.start_cmdline;
}

std::string first_word(const std::string& s) {
    return s.substr(0, s.find(' '));
}

// KERNEL of --boot LABEL=KERNEL for kexec: IMAGE:INITRD, an image (its
// initrd /boot/initrd.img-<release> when there is one) or a release
// (/boot/vmlinuz-<release>). UsageError naming it otherwise.
void resolve_kexec_kernel(BootLabel& label) {
    std::error_code ec;
    const std::string& k = label.kernel;
    const auto colon = k.find(':');
    if (colon != std::string::npos) {
        label.image = k.substr(0, colon);
        label.initrd = k.substr(colon + 1);
    } else if (k.find('/') != std::string::npos) {
        label.image = k;
    } else {
        label.image = "/boot/vmlinuz-" + k;
    }
    if (!fs::is_regular_file(label.image, ec))
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": no kernel image " +
                         printable(label.image));
    label.image = fs::absolute(label.image).string();
    label.release = first_word(bzimage_version(label.image));
    if (label.release.empty())
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": " +
                         printable(label.image) + " is no bzImage (no version in its header)");
    if (auto why = bzimage_truncated(label.image))
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": " + *why);
    if (colon == std::string::npos) {
        const std::string initrd = "/boot/initrd.img-" + label.release;
        if (fs::is_regular_file(initrd, ec)) label.initrd = initrd;
    } else if (!fs::is_regular_file(label.initrd, ec)) {
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": no initrd " +
                         printable(label.initrd));
    } else {
        label.initrd = fs::absolute(label.initrd).string();
    }
}

// The files a label's kernel is booted from: contest's copies, made in
// results/.boot/ when the run starts, so that a kernel rebuilt, an initrd
// regenerated or a /tmp emptied during the run does not change what its
// later turns boot. The state keeps the files as given (the result records
// them).
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

std::string minutes_text(double s) {
    return std::to_string(static_cast<long>(s / 60 + 0.5)) + " min";
}

// What a label's file records of how its kernel was booted: the label as
// the state has it, and why its kernel could not boot the next, when it
// could not.
nlohmann::json boot_record(const BootState& state, std::size_t i) {
    const BootLabel& l = state.labels[i];
    nlohmann::json j = {{"method", boot_method_name(state.method)},
                        {"kernel", valid_utf8(l.kernel)},
                        {"image", valid_utf8(l.image)},
                        {"initrd", valid_utf8(l.initrd)},
                        {"cmdline", valid_utf8(l.cmdline)},
                        {"release", valid_utf8(l.release)}};
    if (!l.cannot_boot_next.empty()) j["cannot_boot_next"] = valid_utf8(l.cannot_boot_next);
    return j;
}

// The labels' files of the run: each one's own when it has runs already,
// else a new one (the run's group, so report pairs their rounds) with
// this boot's fingerprint, `system`.
std::vector<LabelRun> open_labels(const RunConfig& config, RunPlan& plan, const BootState& state,
                                  const nlohmann::json& record, const nlohmann::json& system) {
    std::vector<ResultFile> fresh = new_results(config, plan, record, state.started_at, system);
    std::vector<LabelRun> labels = std::move(plan.labels);
    std::error_code ec;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const fs::path path = state.labels[i].result;
        labels[i].writer = ResultWriter(path);
        labels[i].result = fs::exists(path, ec) ? read_result_file(path) : std::move(fresh[i]);
        labels[i].result.config["boot"] = boot_record(state, i);
    }
    return labels;
}

nlohmann::json booted_record(const RunningKernel& k, const nlohmann::json& system) {
    return {{"release", valid_utf8(k.release)},
            {"cmdline", valid_utf8(k.cmdline)},
            {"boot_id", valid_utf8(k.boot_id)},
            {"system", system}};
}

// What the previous boot left of why it ended: its kernel log's tail
// (journalctl -b -1 -k) or what pstore kept.
std::string previous_boot_tail() {
    if (find_on_path("journalctl")) {
        const std::string out = command_output(
            {"journalctl", "-b", "-1", "-k", "-n", "8", "--no-pager", "-o", "cat", "-q"});
        if (!out.empty())
            return "the previous boot's kernel log ends: " + join(split_lines(out), " | ");
    }
    std::error_code ec;
    std::vector<std::string> kept;
    for (const auto& e : fs::directory_iterator("/sys/fs/pstore", ec))
        kept.push_back(e.path().filename().string());
    if (!kept.empty()) return "pstore kept " + join(kept, ", ") + " (/sys/fs/pstore)";
    return "no journal of the previous boot, nothing in pstore";
}

struct RunOfState {
    RunConfig config;
    RunPlan plan;
};

// The run's config from its recorded words, in the folder they were given
// in, and its plan; for a turn to take (`clean_up`), once what a contest
// killed hard left is put right (plan_after_clean_up: a power cut mid-turn
// leaves its loads' folders and half-written files to the next turn).
RunOfState plan_of_state(const BootState& state, const ConfigOf& config_of, bool clean_up) {
    std::error_code ec;
    fs::current_path(state.cwd, ec);
    if (ec)
        throw EnvironmentError("the boot run's folder " + printable(state.cwd) + ": " +
                               ec.message());
    std::vector<std::string> words = state.argv;
    if (!words.empty() && words.front() == "run") words.erase(words.begin());
    RunOfState r{config_of(words), {}};
    r.config.seed = state.seed;
    // The workdir the start parsed (whatever the words spelled, or the
    // start's environment gave: the unit's has no HOME).
    r.config.workload.workdir = r.config.load.workdir = state.workdir;
    if (clean_up) {
        r.config.workload.opened_workdir = r.config.load.opened_workdir =
            Workdir::open(r.config.workload.workdir);
        r.plan = plan_after_clean_up(r.config);
    } else {
        r.plan = make_run_plan(r.config);
    }
    return r;
}

// The probes' calibration a label's turn reuses: its file's, made in its
// first measured boot, so that every run of the file asks for the work the
// file records (a resumed file's is reused the same way); nullopt when the
// file has none yet.
std::optional<ResultFile> calibrated_file(const BootState& state, std::size_t label) {
    std::error_code ec;
    if (!fs::exists(state.labels[label].result, ec)) return std::nullopt;
    ResultFile file = read_result_file(state.labels[label].result);
    if (!file.config.contains("latency") || !file.config["latency"].contains("calibration"))
        return std::nullopt;
    return file;
}

// The turn's runs recorded boot_failed in its label's file.
void record_boot_failed(const BootState& state, const BootTurn& turn, const std::string& why,
                        const RunningKernel& k, const ConfigOf& config_of) {
    RunOfState r = plan_of_state(state, config_of, false);
    const nlohmann::json record = config_record(r.config, r.plan, std::nullopt);
    // The machine as this boot has it (each boot has its own kernel and settings).
    const nlohmann::json system = system_fingerprint(r.config.workload.workdir.string());
    std::vector<LabelRun> labels = open_labels(r.config, r.plan, state, record, system);
    LabelRun& label = labels[turn.label];
    for (const auto& load : turn.loads) {
        RunRecord rec;
        rec.load = load;
        rec.index = rec.round = static_cast<int>(turn.round);
        rec.status = RunStatus::boot_failed;
        rec.reason = valid_utf8(why);
        rec.booted = booted_record(k, system);
        label.result.runs.push_back(rec);
    }
    label.save();
}

// The turn's runs taken on this host, as a host run's, into its label's
// file: the run's one loop (run_rounds) over a plan of this one turn.
void take_turn(const BootState& state, const BootTurn& turn, const RunningKernel& k,
               const ConfigOf& config_of, Progress& progress) {
    RunOfState r = plan_of_state(state, config_of, true);
    RunConfig& config = r.config;
    r.plan.resumed = calibrated_file(state, turn.label);
    if (r.plan.resumed && !config.latency_probes.empty())
        progress.note("contest: the probes' work as " + state.labels[turn.label].label +
                      "'s file records it (calibrated in its first measured boot)");
    LabelTurn taken{turn.label, {}};
    for (const auto& name : turn.loads) {
        const auto it = std::find(r.plan.load_names.begin(), r.plan.load_names.end(), name);
        if (it == r.plan.load_names.end())
            throw UsageError("the boot run's state names a load '" + printable(name) +
                             "' its options do not plan");
        taken.loads.push_back(static_cast<std::size_t>(it - r.plan.load_names.begin()));
    }
    r.plan.rounds = {PlannedRound{turn.round, {taken}}};
    std::optional<KnobGuard> no_knobs;
    auto backend = place_info(config.place).backend(config, r.plan, no_knobs, progress);
    const nlohmann::json system = system_fingerprint(config.workload.workdir.string());
    std::size_t before = 0;
    const LabelFiles files{
        [&](RunPlan& plan, const RoundBackend&, const nlohmann::json& record, RunOutcome& out) {
            out.labels = open_labels(config, plan, state, record, system);
            LabelRun& label = out.labels[turn.label];
            before = label.result.runs.size();
            // The file's fingerprint is its label's kernel's: the first
            // boot's that measures under it (its file may have been made in
            // the machine's own kernel, by a turn that failed to boot).
            if (std::none_of(label.result.runs.begin(), label.result.runs.end(),
                             [](const RunRecord& run) { return run.ok(); })) {
                label.result.system = system;
                // And its calibration, which a file made by a failed boot lacks.
                if (record.contains("latency")) label.result.config["latency"] = record["latency"];
            }
        },
        false};
    RunOutcome out = run_rounds(config, r.plan, std::move(backend), no_knobs, files, progress);
    if (!out.save_failure.empty()) throw SaveFailed(out.save_failure);
    LabelRun& label = out.labels[turn.label];
    for (std::size_t i = before; i < label.result.runs.size(); ++i)
        label.result.runs[i].booted = booted_record(k, system);
    label.result.finished_at = utc_timestamp();
    label.save();
}

// What the run put outside its state and result files: the unit (when it
// is this run's: another's may have replaced a unit left behind), contest's
// copy and the kernels' copies (results/.boot/, then the folder when empty).
void remove_run_files(const fs::path& path, const BootState& state) {
    remove_own_boot_unit(state.unit_root, path);
    std::error_code ec;
    for (std::size_t i = 0; i < state.labels.size(); ++i) {
        fs::remove(image_copy(state, i), ec);
        fs::remove(initrd_copy(state, i), ec);
    }
    fs::remove(state.binary, ec);
    fs::remove(fs::path(state.binary).parent_path(), ec);  // .boot/, when empty
}

// The step's lock file, removed by its holder once the state is written for
// the last time: whoever opened it before then finds, once they lock it,
// that it is no longer the lock (FileLock::try_take), and takes the new one.
void remove_lock_file(const fs::path& path) {
    std::error_code ec;
    fs::remove(boot_lock_path(path), ec);
}

// The end of the run: the unit and contest's copy removed, the files
// marked complete, the state kept (--boot-status).
BootStep finish(const fs::path& path, BootState& state, BootPhase phase, const std::string& note) {
    state.phase = phase;
    if (!note.empty()) state.note = note;
    remove_run_files(path, state);
    std::error_code ec;
    BootStep step;
    for (std::size_t i = 0; i < state.labels.size(); ++i) {
        const fs::path result = state.labels[i].result;
        if (!fs::exists(result, ec)) continue;
        ResultFile file = read_result_file(result);
        file.config["boot"] = boot_record(state, i);
        file.complete = phase == BootPhase::done;
        if (file.finished_at.empty()) file.finished_at = utc_timestamp();
        ResultWriter(result).save(file);
        for (const auto& r : file.runs)
            if (!r.ok()) step.exit_code = kExitSomeRunsFailed;
        step.finished.push_back(std::move(file));
    }
    write_boot_state(path, state);
    remove_lock_file(path);
    say(std::string("the boot run is ") + boot_phase_name(phase) +
        (note.empty() ? "" : ": " + note));
    return step;
}

// Where a step asks for the next boot from: whether in the machine's own
// kernel (the one the run started in, or the one the firmware gave back
// after a detour), and the label whose kernel runs when it is a turn's.
struct BootingFrom {
    bool own_kernel = false;
    std::optional<std::size_t> label;
};

// A kernel other than the machine's own that cannot boot the next turn's
// (a label's built without kexec, or without the loader's tools): not the
// next turn's fault. Recorded against the running label (once: its file
// and the state keep the first why) and this boot; then a reboot through
// the firmware, whose kernel boots the next turn.
BootStep detour(const fs::path& path, BootState& state, const BootingFrom& from,
                const std::string& why, Progress& progress) {
    if (from.label) {
        BootLabel& running = state.labels[*from.label];
        if (running.cannot_boot_next.empty()) running.cannot_boot_next = why;
    }
    if (!state.boots.empty()) state.boots.back().outcome += "; " + why;
    say(why + ": back through the firmware, whose kernel boots the next turn");
    throw_if_interrupted();
    state.phase = BootPhase::detour;
    ++state.boots_asked;
    write_boot_state(path, state);
    progress.note("contest: rebooting through the firmware (boot " +
                  std::to_string(state.boots_asked) + " of at most " +
                  std::to_string(state.boot_max) + ")");
    const std::string refused = reboot_default(state.method);
    if (!refused.empty())
        return finish(path, state, end_phase(state),
                      "the reboot through the firmware was refused: " + refused);
    return {};
}

// Boots the next turn's kernel, or the machine's own after the last turn
// (or at the bound). A turn whose kernel the machine's own cannot boot is
// recorded boot_failed and the next one tried; another kernel that cannot
// is blamed itself, and the machine's own tries again (detour).
BootStep boot_next(const fs::path& path, BootState& state, const RunningKernel& k,
                   const ConfigOf& config_of, Progress& progress, const BootingFrom& from) {
    while (state.next_turn < state.turns.size()) {
        if (state.boots_asked + 1 >= state.boot_max) {
            state.note = "stopped at --boot-max " + std::to_string(state.boot_max) + " boots";
            break;
        }
        BootTurn& turn = state.turns[state.next_turn];
        const BootLabel& label = state.labels[turn.label];
        throw_if_interrupted();  // --boot-abort: no reboot after it
        const std::string running =
            from.label ? state.labels[*from.label].label + "'s kernel (" + k.release + ")"
                       : "the running kernel " + k.release;
        if (!from.own_kernel && from.label && !state.labels[*from.label].cannot_boot_next.empty())
            return detour(path, state, from,
                          running + " could not boot the next kernel before (" +
                              state.labels[*from.label].cannot_boot_next + ")",
                          progress);
        ++state.boots_asked;
        write_boot_state(path, state);
        progress.note("contest: round " + std::to_string(turn.round) + ": booting " + label.label +
                      " (" + boot_method_name(state.method) + ", boot " +
                      std::to_string(state.boots_asked) + " of at most " +
                      std::to_string(state.boot_max) + ")");
        const std::string why = boot_label(state.method, booted_files(state, turn.label));
        if (why.empty()) return {};  // the reboot is under way
        if (!from.own_kernel)
            return detour(path, state, from, running + " cannot boot " + label.label + "'s: " + why,
                          progress);
        const std::string reason = "cannot boot " + label.label + ": " + why;
        say(reason);
        record_boot_failed(state, turn, reason, k, config_of);
        turn.status = BootTurnStatus::boot_failed;
        ++state.next_turn;
        if (state.stop_on_failure) return finish(path, state, BootPhase::stopped, reason);
        write_boot_state(path, state);
    }
    // Already in the machine's own kernel: no reboot needed.
    if (from.own_kernel) return finish(path, state, end_phase(state), state.note);
    throw_if_interrupted();
    state.phase = BootPhase::returning;
    ++state.boots_asked;
    write_boot_state(path, state);
    progress.note("contest: every turn taken: rebooting into the machine's default kernel");
    const std::string why = reboot_default(state.method);
    if (!why.empty())
        return finish(path, state, end_phase(state), "the reboot back was refused: " + why);
    return {};
}

// Nothing left that would boot a label's kernel at the next reboot: a
// kernel loaded for kexec unloaded, a one-shot entry cleared.
void disarm_next_boot(const BootState& state) {
    if (state.method == BootMethod::kexec) kexec_unload();
    if (auto why = clear_one_shot(state.method); !why.empty())
        say("the one-shot boot entry may still be set: " + why);
}

// The first boot, asked from the kernel the run starts in. An interrupt
// before the reboot is asked (Ctrl-C, SIGHUP, SIGTERM: boot_label throws
// only then) leaves nothing armed: the kernel unloaded or the one-shot
// entry cleared, the unit and the copies removed, the state aborted.
BootStep first_boot(const fs::path& path, BootState& state, const RunningKernel& k,
                    const ConfigOf& config_of, Progress& progress) {
    try {
        return boot_next(path, state, k, config_of, progress, {true, std::nullopt});
    } catch (const Interrupted&) {
        try {
            const InterruptSetAside undo_to_its_end;
            disarm_next_boot(state);
            finish(path, state, BootPhase::aborted,
                   "interrupted before the first reboot was asked: nothing left armed");
        } catch (const std::exception& e) {
            warn("--boot: undoing the interrupted start: " + std::string(e.what()));
        }
        throw;
    }
}

// A step after a boot whose turn is not to be taken: the way back or a
// detour come back, or no turn left (the step before ended, by a power cut
// or a failed save, between the last turn and asking for the way back).
// nullopt when the step has a turn to take.
std::optional<BootStep> step_without_turn(const fs::path& path, BootState& state,
                                          const RunningKernel& k, const ConfigOf& config_of,
                                          Progress& progress) {
    BootSeen& seen = state.boots.back();
    const bool home = in_start_kernel(state, k);
    const std::string where = home ? ""
                                   : "in " + k.release + " (" + k.cmdline +
                                         "), the machine's default, not the kernel the "
                                         "run started in (" +
                                         state.start_release + ")";
    if (state.phase == BootPhase::returning) {
        seen.expected = "start";
        seen.outcome = home ? "back" : "back " + where;
        return finish(path, state, end_phase(state), home ? state.note : "came " + seen.outcome);
    }
    if (state.phase == BootPhase::detour) {
        seen.expected = "start";
        seen.outcome = "through the firmware, for the next turn" + (home ? "" : ", " + where);
        state.phase = BootPhase::running;
        return boot_next(path, state, k, config_of, progress, {true, std::nullopt});
    }
    if (state.next_turn < state.turns.size()) return std::nullopt;
    seen.expected = "start";
    seen.outcome = "no turn left (the step before ended before asking for the way back)";
    return boot_next(path, state, k, config_of, progress, {home, std::nullopt});
}

// The run's state as its options plan it, in the results folder `folder`
// (resolved): the labels' kernels resolved (UsageError naming one that is
// not there, or no whole bzImage), every turn pending. Nothing of the
// machine is checked or made.
BootState planned_state(const RunConfig& config, const BootRunOptions& options, const RunPlan& plan,
                        const RunningKernel& k, const fs::path& folder) {
    BootState state;
    state.method = options.method;
    state.seed = plan.seed;
    state.started_at = utc_timestamp();
    state.start_release = k.release;
    state.start_cmdline = k.cmdline;
    state.unit_root = fs::absolute(options.root).lexically_normal().string();
    state.stop_on_failure = options.stop_on_failure;
    state.argv = config.command_line;
    if (!config.seed) state.argv.push_back("--seed=" + std::to_string(plan.seed));
    // The unit runs with another environment (no HOME, XDG_CACHE_HOME) and
    // folder: the workdir as parsed and the folder the words were given in,
    // recorded.
    state.workdir = fs::absolute(config.workload.workdir).lexically_normal().string();
    state.cwd = fs::current_path().string();
    state.binary = boot_binary_path(folder).string();
    const std::string base = base_cmdline(k.cmdline);
    for (const auto& spec : config.kernels) {
        BootLabel& label = state.labels.emplace_back();
        label.label = spec.label;
        label.kernel = spec.image;
        if (options.method == BootMethod::kexec) {
            resolve_kexec_kernel(label);
            label.cmdline = label_cmdline(base, config.append_of(spec.label));
        } else if (!config.append_of(spec.label).empty()) {
            throw UsageError("--boot-append " + spec.label + "=...: a " +
                             boot_method_name(options.method) +
                             " entry has its own command line; --boot-append is kexec's");
        }
        label.result = new_result_path(folder, spec.label, state.started_at).string();
    }
    for (const auto& round : plan.rounds)
        for (const auto& turn : round.turns) {
            BootTurn& t = state.turns.emplace_back();
            t.round = round.index;
            t.label = turn.label;
            for (const auto load : turn.loads) t.loads.emplace_back(plan.load_names[load]);
        }
    // By default one a turn, a detour through the firmware after each but
    // the last (a kernel that cannot boot the next), and one back.
    state.boot_max =
        options.boot_max ? options.boot_max : static_cast<unsigned>(2 * state.turns.size());
    return state;
}

// UsageError when the run whose state is `path` is under way (`phase`).
[[noreturn]] void refuse_run_under_way(const fs::path& path, BootPhase phase) {
    throw UsageError("a --boot run is under way in " + path.parent_path().string() + " (" +
                     boot_phase_name(phase) +
                     "): see it with --boot-status, stop it with --boot-abort");
}

// One --boot run a machine: its unit (there is one) names the live run's
// state. UsageError when that run is under way, or its state cannot be
// read; a unit left by a finished run, or whose state is gone, is replaced.
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

// results as a --boot run names it: absolute, its links resolved.
fs::path run_folder(const fs::path& results) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(results).lexically_normal();
    const fs::path real = fs::weakly_canonical(absolute, ec);
    return ec ? absolute : real;
}

}  // namespace

fs::path boot_state_path(const fs::path& results) {
    return run_folder(results) / kBootStateName;
}

BootStep start_boot_run(const RunConfig& given, const BootRunOptions& options, Progress& progress) {
    check_run_options(given);
    RunPlan plan = make_run_plan(given);
    // Every TREE@REF built, its modules installed and its initramfs made,
    // before the first reboot; the state records IMAGE:INITRD.
    RunConfig config = given;
    kbuild::BuildSettings build;
    build.workdir = config.workload.workdir;
    build.results_dir = config.results_dir;
    build.config_file = config.build_config;
    build.target = kbuild::BuildTarget::boot;
    build.option = "--boot";
    const auto built = kbuild::build_kernel_refs(config.kernels, build, progress);
    for (std::size_t i = 0; i < built.size(); ++i)
        if (built[i]) config.kernels[i].image = built[i]->image;
    const fs::path folder = run_folder(config.results_dir);
    const fs::path path = folder / kBootStateName;
    const RunningKernel k = running_kernel();
    // The user's words first (UsageError), then the machine: nothing made yet.
    BootState state = planned_state(config, options, plan, k, folder);
    const BootPlaces places{folder, state.cwd, state.workdir, state.unit_root};
    check_boot_place_names(places);
    check_boot_places(places);
    std::error_code ec;
    // An existing workdir checked now, as each step will open it (one of
    // another user's, or open to others, is refused); a missing one is
    // made once everything is checked.
    if (fs::exists(state.workdir, ec)) Workdir::open(state.workdir);
    // Everything checked before the first reboot.
    std::vector<std::string> problems;
    for (auto& label : state.labels)
        if (auto why = boot_check(options.method, label, state.unit_root); !why.empty())
            problems.push_back(label.label + ": " + why);
    if (!problems.empty()) throw EnvironmentError("--boot: cannot boot " + join(problems, "; "));
    // One start at a time on the machine, looking at its unit (the live
    // run's) and installing its own under this lock.
    fs::create_directories(machine_boot_lock_path(state.unit_root).parent_path(), ec);
    const std::optional<FileLock> machine =
        FileLock::try_take(machine_boot_lock_path(state.unit_root));
    if (!machine)
        throw UsageError("another contest run --boot is starting on this machine (pid " +
                         std::to_string(FileLock::holder(machine_boot_lock_path(state.unit_root))) +
                         "): one --boot run at a time");
    refuse_another_live_run(state.unit_root, path);
    // What root makes for the run (label folders, result files) must pass
    // the next boot's checks: writable by root alone.
    ::umask(022);
    make_results_folder(folder);
    check_results_folder(folder);
    // Taken once everything is checked (a refused run leaves no lock file),
    // and the state looked at under it: two starts at once make one run.
    const std::optional<FileLock> lock = FileLock::try_take(boot_lock_path(path));
    if (!lock)
        throw UsageError("a --boot run is under way in " + folder.string() + " (pid " +
                         std::to_string(FileLock::holder(boot_lock_path(path))) +
                         "): see it with --boot-status, stop it with --boot-abort");
    if (fs::exists(path, ec))
        if (const BootState old = read_boot_state(path); !old.finished())
            refuse_run_under_way(path, old.phase);
    Workdir::open(state.workdir);
    try {
        const UniqueFd copies = open_copy_folder(folder);
        copy_into(copies, "contest", "/proc/self/exe", state.binary, 0700);
        for (std::size_t i = 0; i < state.labels.size(); ++i) {
            const BootLabel& label = state.labels[i];
            if (state.method != BootMethod::kexec) continue;
            copy_into(copies, image_copy(state, i).filename().c_str(), label.image,
                      image_copy(state, i), 0600);
            if (!label.initrd.empty())
                copy_into(copies, initrd_copy(state, i).filename().c_str(), label.initrd,
                          initrd_copy(state, i), 0600);
        }
        install_boot_unit(state.unit_root, state.binary, path,
                          {fs::path(state.workdir), fs::path(state.cwd)});
        write_boot_state(path, state);
    } catch (...) {
        // A disk full, a root that cannot take the unit: nothing left of the run.
        remove_run_files(path, state);
        remove_lock_file(path);
        throw;
    }
    const unsigned reboots = static_cast<unsigned>(state.turns.size()) + 1;
    progress.note("contest: " + std::to_string(state.turns.size()) + " turns (" +
                  std::to_string(state.labels.size()) + " kernels x " +
                  std::to_string(config.runs) + " rounds): " + std::to_string(reboots) +
                  " reboots (one a turn, one back), roughly " +
                  minutes_text(reboots * (options.method == BootMethod::kexec ? 60.0 : 120.0)) +
                  " of booting besides the runs; the state is " + path.string() +
                  " (contest run --boot-status, --boot-abort)");
    return first_boot(
        path, state, k, [&](const std::vector<std::string>&) { return config; }, progress);
}

BootStep continue_boot_run(const fs::path& path, const ConfigOf& config_of, Progress& progress) {
    const std::optional<FileLock> lock = take_step_lock(path);
    if (!lock) return {};
    BootState state = read_boot_state(path);
    if (state.finished()) {
        say("the boot run in " + path.string() + " is " + boot_phase_name(state.phase) +
            ": nothing to do");
        return {};
    }
    const RunningKernel k = running_kernel();
    for (const auto& seen : state.boots)
        if (!k.boot_id.empty() && seen.boot_id == k.boot_id) {
            // A second start in one boot (the unit run again): never measure twice.
            say("this boot (" + k.boot_id + ") was recorded already: nothing to do");
            return {};
        }
    BootSeen& seen = state.boots.emplace_back();
    seen.boot_id = k.boot_id;
    seen.release = k.release;
    seen.cmdline = k.cmdline;
    seen.at = utc_timestamp();
    seen.up_s = k.up_s;
    if (auto step = step_without_turn(path, state, k, config_of, progress)) return *step;
    BootTurn& turn = state.turns[state.next_turn];
    const BootLabel& label = state.labels[turn.label];
    seen.expected = label.label;
    std::string failure;
    if (turn.status == BootTurnStatus::started)
        failure = "the machine rebooted during the turn's runs";
    else
        failure = not_the_labels_kernel(state.method, label, k);
    if (!failure.empty()) {
        failure += "; " + previous_boot_tail();
        seen.outcome = "boot_failed: " + failure;
        say("round " + std::to_string(turn.round) + " " + label.label + ": " + failure);
        // The state first: a failure to write the file is not a turn taken twice.
        turn.status = BootTurnStatus::boot_failed;
        ++state.next_turn;
        write_boot_state(path, state);
        record_boot_failed(state, turn, failure, k, config_of);
        if (state.stop_on_failure) return finish(path, state, BootPhase::stopped, failure);
        return boot_next(path, state, k, config_of, progress,
                         {in_start_kernel(state, k), std::nullopt});
    }
    const std::string up = std::to_string(static_cast<int>(k.up_s)) + " s";
    progress.status("contest: " + label.label + " up after " + up + ": settling");
    // A test's made-up boot (kTestRunningKernelVariable) has nothing to settle.
    const Settled settled = settle_machine(k.stand_in ? 0 : kBootSettleS);
    seen.settled = settled.state;
    turn.status = BootTurnStatus::started;
    write_boot_state(path, state);
    progress.note("contest: round " + std::to_string(turn.round) + " under " + label.label + " (" +
                  k.release + "), up " + up + ", " + settled.state);
    take_turn(state, turn, k, config_of, progress);
    turn.status = BootTurnStatus::done;
    seen.outcome = "measured";
    ++state.next_turn;
    write_boot_state(path, state);
    return boot_next(path, state, k, config_of, progress, {in_start_kernel(state, k), turn.label});
}

int print_boot_status(const fs::path& results) {
    const fs::path path = boot_state_path(results);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        std::cout << "no boot run in " << results.string() << "\n";
        return kExitOk;
    }
    const BootState s = read_boot_state(path);
    std::size_t taken = 0, failed = 0;
    for (const auto& t : s.turns) {
        taken += t.status == BootTurnStatus::done;
        failed += t.status == BootTurnStatus::boot_failed;
    }
    std::cout << "boot run " << s.started_at << ": " << boot_phase_name(s.phase)
              << (s.note.empty() ? "" : " (" + printable(s.note) + ")") << "\n"
              << "  method " << boot_method_name(s.method) << ", " << s.turns.size()
              << " turns: " << taken << " taken, " << failed << " failed, "
              << s.turns.size() - taken - failed << " to go; " << s.boots_asked
              << " boots asked of at most " << s.boot_max << "\n"
              << "  started in " << printable(s.start_release) << " (" << printable(s.start_cmdline)
              << ")\n";
    for (const auto& l : s.labels)
        std::cout << "  " << printable(l.label) << ": " << printable(l.kernel)
                  << (l.cmdline.empty() ? "" : "  cmdline: " + printable(l.cmdline)) << "\n";
    for (const auto& t : s.turns)
        std::cout << "  round " << t.round << "  " << printable(s.labels[t.label].label) << "  "
                  << boot_turn_status_name(t.status) << "\n";
    for (const auto& b : s.boots)
        std::cout << "  boot " << printable(b.at) << "  expected " << printable(b.expected)
                  << "  got " << printable(b.release) << "  up " << b.up_s << " s  "
                  << printable(b.outcome) << "\n";
    if (const pid_t step = FileLock::held_by(boot_lock_path(path)); step > 0)
        std::cout << "  a step under way: pid " << step << "\n";
    if (const auto named = boot_unit_state(s.unit_root); named == path)
        std::cout << "  unit " << boot_unit_path(s.unit_root).string() << "\n";
    else if (named)
        std::cout << "  the machine's unit is another run's (" << printable(named->string())
                  << ")\n";
    return kExitOk;
}

namespace {

// --boot-abort's state, read under the step's lock (the step under way
// stopped first); when it cannot be read, or its folder is refused, and the
// machine's unit is this run's, that unit is removed all the same (nothing
// else is known of the run) and nullopt returned.
std::optional<std::pair<FileLock, BootState>> state_to_abort(const fs::path& path,
                                                             const fs::path& root) {
    std::optional<FileLock> lock;
    try {
        check_state_place(path);
        lock = stop_step_under_way(path);
        return std::pair{std::move(*lock), read_boot_state(path)};
    } catch (const std::exception& e) {
        if (lock) remove_lock_file(path);  // held: nothing of a run to step
        if (dynamic_cast<const UsageError*>(&e) == nullptr &&
            dynamic_cast<const EnvironmentError*>(&e) == nullptr)
            throw;
        if (!remove_own_boot_unit(root, path)) throw;
        say(std::string(e.what()) +
            "; contest's unit, which named this run's state, removed (nothing else changed)");
        return std::nullopt;
    }
}

}  // namespace

int abort_boot_run(const fs::path& results, const fs::path& root_in) {
    const fs::path path = boot_state_path(results);
    const fs::path root = fs::absolute(root_in).lexically_normal();
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        if (!remove_own_boot_unit(root, path))
            throw UsageError("--boot-abort: no boot run in " + results.string());
        say("no state in " + results.string() +
            ": contest's unit, which named it, removed (nothing else changed)");
        return kExitOk;
    }
    auto taken = state_to_abort(path, root);
    if (!taken) return kExitEnvironment;
    BootState& state = taken->second;
    if (state.finished()) {
        // The unit may be left by a crash between the two: removed, when it
        // is still this run's (a later run may have replaced it).
        remove_own_boot_unit(state.unit_root, path);
        remove_lock_file(path);
        say(std::string("the boot run is ") + boot_phase_name(state.phase) + " already");
        return kExitOk;
    }
    for (auto& turn : state.turns)
        if (turn.status == BootTurnStatus::started) turn.status = BootTurnStatus::interrupted;
    // Nothing left that would boot a label's kernel at the next reboot; but
    // a machine whose unit is another run's is that run's to boot.
    if (const auto named = boot_unit_state(state.unit_root); named && *named != path) {
        say("the machine's unit is another --boot run's (" + printable(named->string()) +
            "): its kexec kernel and one-shot entry left alone");
    } else {
        disarm_next_boot(state);
    }
    finish(path, state, BootPhase::aborted, "aborted by contest run --boot-abort");
    return kExitOk;
}

}  // namespace contest
