#include "contest/run/boot_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "contest/boot/boot_files.h"
#include "contest/boot/boot_guard.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_unit.h"
#include "contest/kbuild/boot_install.h"
#include "contest/kbuild/built_kernels.h"
#include "contest/run/boot_turn.h"
#include "contest/run/config_record.h"
#include "contest/run/result_writer.h"
#include "contest/run/run_plan.h"
#include "contest/run/settle.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The most a boot waits, once up, for the machine to settle (the services
// started after it, their writeback) before its turn's runs.
constexpr double kBootSettleS = 60;

std::string minutes_text(double s) {
    return std::to_string(static_cast<long>(s / 60 + 0.5)) + " min";
}

// The end of the run: the unit and contest's copy removed, the files
// marked complete, the state kept (--boot-status).
// The releases contest built and installed for the run's labels, removed
// (unless --boot-keep-built): only a folder with contest's mark, and never
// the release the machine runs now (an abort from a label's kernel).
void remove_built_releases(const BootState& state) {
    if (state.keep_built) return;
    const std::string running = running_kernel().release;
    for (const auto& label : state.labels) {
        if (label.built_release.empty() || label.built_release == running) continue;
        if (kbuild::remove_release(label.built_release, state.unit_root))
            say("removed the release contest built for " + label.label + " (lib/modules/" +
                label.built_release + ")");
    }
}

BootStep finish_run(const fs::path& path, BootState& state, BootPhase phase,
                    const std::string& note) {
    state.phase = phase;
    if (!note.empty()) state.note = note;
    remove_run_files(path, state);
    remove_built_releases(state);
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

// The run's `then`, once it is over: contest's words, run by this very
// binary (its copy in .boot was just removed: /proc/self/exe still names
// it) from the folder the run was started in, and waited for. It asks for
// the next reboot itself, when there is one; a failure is the unit's log's.
void start_then(const BootState& state) {
    if (state.then.empty()) return;
    say("the boot run goes on with: contest " + join(state.then, " "));
    std::vector<std::string> argv = {"/proc/self/exe"};
    argv.insert(argv.end(), state.then.begin(), state.then.end());
    SpawnOptions options;
    options.cwd = state.cwd;
    options.ties.own_group = false;
    try {
        const int status = wait_for_exit(spawn(argv, options));
        if (status != 0)
            warn("contest " + join(state.then, " ") + ": " + describe_wait_status(status));
    } catch (const std::exception& e) {
        warn("contest " + join(state.then, " ") + ": " + e.what());
    }
}

// Where a step asks for the next boot from: whether in the machine's own
// kernel (the one the run started in, or the one the firmware gave back
// after a detour), and the label whose kernel runs when it is a turn's.
struct BootingFrom {
    bool own_kernel = false;
    std::optional<std::size_t> label;
};

// One step of the run, in the boot `k` it runs in: the run's state machine.
// Each member is one way a step goes on from what the state says; each
// writes the state before it asks the machine for a reboot, so that the
// next step (or --boot-status) reads what this one did. The step holds the
// state's path, the state and the boot, which every move reads.
class BootSteps {
  public:
    BootSteps(fs::path path, BootState& state, RunningKernel k, const ConfigOf& config_of,
              Progress& progress)
        : path_(std::move(path)),
          state_(state),
          k_(std::move(k)),
          config_of_(config_of),
          progress_(progress) {}

    // The first boot, asked from the kernel the run starts in. An
    // interrupt before the reboot is asked (Ctrl-C, SIGHUP, SIGTERM:
    // boot_label throws only then) leaves nothing armed: the kernel
    // unloaded or the one-shot entry cleared, the unit and the copies
    // removed, the state aborted.
    BootStep first_boot() {
        try {
            return boot_next({true, std::nullopt});
        } catch (const Interrupted&) {
            try {
                const InterruptSetAside undo_to_its_end;
                disarm_next_boot(state_);
                finish(BootPhase::aborted,
                       "interrupted before the first reboot was asked: nothing left armed");
            } catch (const std::exception& e) {
                warn("--boot: undoing the interrupted start: " + std::string(e.what()));
            }
            throw;
        }
    }

    // A step after a boot: the boot recorded, then its turn taken (or
    // recorded boot_failed when the boot is not the label's kernel's), or
    // the way back, a detour or a run with no turn left ended; and the next
    // boot asked.
    BootStep after_boot() {
        BootSeen& seen = record_boot();
        if (state_.phase == BootPhase::returning) return came_back(seen);
        if (state_.phase == BootPhase::detour) return detour_came_back(seen);
        if (state_.next_turn >= state_.turns.size()) {
            // The step before ended (a power cut, a failed save) between
            // the last turn and asking for the way back.
            seen.expected = "start";
            seen.outcome = "no turn left (the step before ended before asking for the way back)";
            return boot_next({home(), std::nullopt});
        }
        BootTurn& turn = state_.turns[state_.next_turn];
        const BootLabel& label = state_.labels[turn.label];
        seen.expected = label.label;
        std::string failure = turn.status == BootTurnStatus::started
                                  ? "the machine rebooted during the turn's runs"
                                  : not_the_labels_kernel(state_.method, label, k_);
        if (!failure.empty()) return turn_not_booted(seen, turn, failure);
        take_turn(seen, turn);
        return boot_next({home(), turn.label});
    }

    // The run's end; what it says to start then (contest bisect --boot's
    // next batch) once it is done or stopped, never when it was aborted.
    BootStep finish(BootPhase phase, const std::string& note) {
        BootStep step = finish_run(path_, state_, phase, note);
        // Only in a step after a boot (one is recorded), not in the start's
        // own contest (its first reboot refused): what started the run is
        // there to say so.
        if (phase != BootPhase::aborted && !state_.boots.empty()) start_then(state_);
        return step;
    }

  private:
    void save() { write_boot_state(path_, state_); }
    bool home() const { return in_start_kernel(state_, k_); }

    BootSeen& record_boot() {
        BootSeen& seen = state_.boots.emplace_back();
        seen.boot_id = k_.boot_id;
        seen.release = k_.release;
        seen.cmdline = k_.cmdline;
        seen.at = utc_timestamp();
        seen.up_s = k_.up_s;
        return seen;
    }

    // "in RELEASE (CMDLINE), the machine's default, ..." when this boot is
    // not in the kernel the run started in; "" when it is.
    std::string where() const {
        if (home()) return "";
        return "in " + k_.release + " (" + k_.cmdline +
               "), the machine's default, not the kernel the run started in (" +
               state_.start_release + ")";
    }

    // The way back after the last turn: the run ends.
    BootStep came_back(BootSeen& seen) {
        seen.expected = "start";
        seen.outcome = home() ? "back" : "back " + where();
        return finish(end_phase(state_), home() ? state_.note : "came " + seen.outcome);
    }

    // Back through the firmware after a kernel that could not boot the
    // next turn's: the machine's own kernel boots it.
    BootStep detour_came_back(BootSeen& seen) {
        seen.expected = "start";
        seen.outcome = "through the firmware, for the next turn" + (home() ? "" : ", " + where());
        state_.phase = BootPhase::running;
        return boot_next({true, std::nullopt});
    }

    // This boot is not the turn's kernel's (or the machine rebooted during
    // the turn): the turn's runs recorded boot_failed, and the next asked.
    BootStep turn_not_booted(BootSeen& seen, BootTurn& turn, std::string failure) {
        failure += "; " + previous_boot_tail();
        seen.outcome = "boot_failed: " + failure;
        say("round " + std::to_string(turn.round) + " " + state_.labels[turn.label].label + ": " +
            failure);
        // The state first: a failure to write the file is not a turn taken twice.
        turn.status = BootTurnStatus::boot_failed;
        ++state_.next_turn;
        save();
        record_boot_failed(state_, turn, failure, k_, config_of_);
        if (state_.stop_on_failure) return finish(BootPhase::stopped, failure);
        return boot_next({home(), std::nullopt});
    }

    // The turn's runs, once the machine settled; the state says `started`
    // while they run (a reboot meanwhile is that turn's failure).
    void take_turn(BootSeen& seen, BootTurn& turn) {
        const std::string& label = state_.labels[turn.label].label;
        const std::string up = std::to_string(static_cast<int>(k_.up_s)) + " s";
        progress_.status("contest: " + label + " up after " + up + ": settling");
        // A test's made-up boot (kTestRunningKernelVariable) has nothing to settle.
        const Settled settled = settle_machine(k_.stand_in ? 0 : kBootSettleS);
        seen.settled = settled.state;
        turn.status = BootTurnStatus::started;
        save();
        progress_.note("contest: round " + std::to_string(turn.round) + " under " + label + " (" +
                       k_.release + "), up " + up + ", " + settled.state);
        take_boot_turn(state_, turn, k_, config_of_, progress_);
        turn.status = BootTurnStatus::done;
        seen.outcome = "measured";
        ++state_.next_turn;
        save();
    }

    // A kernel other than the machine's own that cannot boot the next
    // turn's (a label's built without kexec, or without the loader's
    // tools): not the next turn's fault. Recorded against the running label
    // (once: its file and the state keep the first why) and this boot;
    // then a reboot through the firmware, whose kernel boots the next turn.
    BootStep detour(const BootingFrom& from, const std::string& why) {
        if (from.label) {
            BootLabel& running = state_.labels[*from.label];
            if (running.cannot_boot_next.empty()) running.cannot_boot_next = why;
        }
        if (!state_.boots.empty()) state_.boots.back().outcome += "; " + why;
        say(why + ": back through the firmware, whose kernel boots the next turn");
        throw_if_interrupted();
        state_.phase = BootPhase::detour;
        ++state_.boots_asked;
        save();
        progress_.note("contest: rebooting through the firmware (boot " +
                       std::to_string(state_.boots_asked) + " of at most " +
                       std::to_string(state_.boot_max) + ")");
        const std::string refused = reboot_default(state_.method);
        if (!refused.empty())
            return finish(end_phase(state_),
                          "the reboot through the firmware was refused: " + refused);
        return {};
    }

    // Boots the next turn's kernel, or the machine's own after the last
    // turn (or at the bound). A turn whose kernel the machine's own cannot
    // boot is recorded boot_failed and the next one tried; another kernel
    // that cannot is blamed itself, and the machine's own tries again
    // (detour).
    BootStep boot_next(const BootingFrom& from) {
        while (state_.next_turn < state_.turns.size()) {
            if (state_.boots_asked + 1 >= state_.boot_max) {
                state_.note = "stopped at --boot-max " + std::to_string(state_.boot_max) + " boots";
                break;
            }
            BootTurn& turn = state_.turns[state_.next_turn];
            const BootLabel& label = state_.labels[turn.label];
            throw_if_interrupted();  // --boot-abort: no reboot after it
            const std::string running =
                from.label ? state_.labels[*from.label].label + "'s kernel (" + k_.release + ")"
                           : "the running kernel " + k_.release;
            if (!from.own_kernel && from.label &&
                !state_.labels[*from.label].cannot_boot_next.empty())
                return detour(from, running + " could not boot the next kernel before (" +
                                        state_.labels[*from.label].cannot_boot_next + ")");
            ++state_.boots_asked;
            save();
            progress_.note("contest: round " + std::to_string(turn.round) + ": booting " +
                           label.label + " (" + boot_method_name(state_.method) + ", boot " +
                           std::to_string(state_.boots_asked) + " of at most " +
                           std::to_string(state_.boot_max) + ")");
            const std::string why = boot_label(state_.method, booted_files(state_, turn.label));
            if (why.empty()) return {};  // the reboot is under way
            if (!from.own_kernel)
                return detour(from, running + " cannot boot " + label.label + "'s: " + why);
            const std::string reason = "cannot boot " + label.label + ": " + why;
            say(reason);
            record_boot_failed(state_, turn, reason, k_, config_of_);
            turn.status = BootTurnStatus::boot_failed;
            ++state_.next_turn;
            if (state_.stop_on_failure) return finish(BootPhase::stopped, reason);
            save();
        }
        // Already in the machine's own kernel: no reboot needed.
        if (from.own_kernel) return finish(end_phase(state_), state_.note);
        throw_if_interrupted();
        state_.phase = BootPhase::returning;
        ++state_.boots_asked;
        save();
        progress_.note("contest: every turn taken: rebooting into the machine's default kernel");
        const std::string why = reboot_default(state_.method);
        if (!why.empty()) return finish(end_phase(state_), "the reboot back was refused: " + why);
        return {};
    }

    const fs::path path_;
    BootState& state_;
    const RunningKernel k_;
    const ConfigOf& config_of_;
    Progress& progress_;
};

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
    state.keep_built = options.keep_built;
    state.then = options.then;
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
    // The modules go under the root the unit goes under; the initramfs is
    // made with the machine's own tool, for the machine's own root alone.
    build.install_root = options.root;
    build.make_initramfs = fs::absolute(options.root).lexically_normal() == "/";
    const auto built = kbuild::build_kernel_refs(config.kernels, build, progress);
    for (std::size_t i = 0; i < built.size(); ++i)
        if (built[i]) config.kernels[i].image = built[i]->image;
    const fs::path folder = boot_run_folder(config.results_dir);
    const fs::path path = folder / kBootStateName;
    const RunningKernel k = running_kernel();
    // The user's words first (UsageError), then the machine: nothing made yet.
    BootState state = planned_state(config, options, plan, k, folder);
    for (std::size_t i = 0; i < built.size() && i < state.labels.size(); ++i)
        if (built[i]) {
            state.labels[i].built_release = built[i]->record.release;
            state.labels[i].build = built[i]->record.to_json().dump();
        }
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
    const ConfigOf config_of = [&](const std::vector<std::string>&) { return config; };
    return BootSteps(path, state, k, config_of, progress).first_boot();
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
    return BootSteps(path, state, k, config_of, progress).after_boot();
}

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
    finish_run(path, state, BootPhase::aborted, "aborted by contest run --boot-abort");
    return kExitOk;
}

}  // namespace contest
