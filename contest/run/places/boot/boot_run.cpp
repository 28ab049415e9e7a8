#include "contest/run/places/boot/boot_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "contest/boot/boot_files.h"
#include "contest/boot/boot_guard.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_unit.h"
#include "contest/kbuild/boot_install.h"
#include "contest/kbuild/built_kernels.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/run/places/boot/boot_turn.h"
#include "contest/run/plan/config_record.h"
#include "contest/run/plan/run_journal.h"
#include "contest/run/plan/run_plan.h"
#include "contest/run/record/result_writer.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

std::string minutes_text(double s) {
    return std::to_string(static_cast<long>(s / 60 + 0.5)) + " min";
}

// The run's state as its options plan it, in the results folder `folder`
// (resolved): the labels' kernels resolved (UsageError naming one that is
// not there, or no whole bzImage), but for a TREE@REF, which is once it is
// built (built_labels). Nothing of the machine is checked or made.
BootState planned_state(const RunConfig& config, const BootRunOptions& options,
                        const JournalTurns& turns, const RunningKernel& k, const fs::path& folder) {
    BootState state;
    state.method = options.method;
    state.started_at = utc_timestamp();
    state.start_release = k.release;
    state.start_cmdline = k.cmdline;
    state.unit_root = fs::absolute(options.root).lexically_normal().string();
    state.stop_on_failure = options.stop_on_failure;
    state.keep_built = options.keep_built;
    state.owner = options.owner.string();
    // The unit runs with another environment (no HOME, XDG_CACHE_HOME):
    // the workdir as parsed (its links resolved), recorded, here and in
    // the journal.
    std::error_code ec;
    const fs::path workdir = fs::absolute(config.workload.workdir).lexically_normal();
    const fs::path real_workdir = fs::weakly_canonical(workdir, ec);
    state.workdir = (ec ? workdir : real_workdir).string();
    state.binary = boot_binary_path(folder).string();
    const std::string base = base_cmdline(k.cmdline);
    for (const auto& spec : config.kernels) {
        BootLabel& label = state.labels.emplace_back();
        label.label = spec.label;
        label.kernel = spec.image;
        const bool built = kbuild::looks_like_kernel_ref(spec.image);
        if (built && options.method != BootMethod::kexec)
            throw UsageError("--boot " + spec.label + "=" + printable(spec.image) +
                             ": a kernel contest builds boots by kexec only, not by " +
                             boot_method_name(options.method));
        if (options.method == BootMethod::kexec) {
            // A kernel contest builds is resolved once it is built.
            if (!built) resolve_kexec_kernel(label);
            label.cmdline = label_cmdline(base, config.append_of(spec.label));
        } else if (!config.append_of(spec.label).empty()) {
            throw UsageError("--boot-append " + spec.label + "=...: a " +
                             boot_method_name(options.method) +
                             " entry has its own command line; --boot-append is kexec's");
        }
        label.result = new_result_path(folder, spec.label, state.started_at).string();
    }
    // By default one a turn, a detour through the firmware after each but
    // the last (a kernel that cannot boot the next), and one back.
    state.boot_max =
        options.boot_max ? options.boot_max : static_cast<unsigned>(2 * turns.list.size());
    return state;
}

// The run's journal: its config as the start resolved it, the seed drawn
// and the workdir the state's (absolute, its links resolved).
RunJournal journal_of(const RunConfig& config, const RunPlan& plan, const BootState& state) {
    RunJournal journal{config, state.started_at, std::nullopt, {}, std::nullopt, {}};
    journal.config.seed = plan.seed;
    journal.config.workload.workdir = journal.config.load.workdir = state.workdir;
    journal.config.workload.opened_workdir.reset();
    journal.config.load.opened_workdir.reset();
    journal.config.stop_rule = nullptr;
    return journal;
}

// The run's journal at path, whose config root runs: read only from a
// folder nobody but root can change (checked before anything is read).
RunJournal read_boot_journal(const fs::path& path) {
    check_state_place(path);
    RunJournal read = read_run_journal(path);
    if (!read.config.seed)
        throw UsageError(printable(path.string()) +
                         ": config: seed: unset (a --boot run's seed is drawn at its start)");
    return read;
}

// --boot-abort's state, read under the step's lock (the step under way
// stopped first); when it cannot be read, or its folder is refused, and the
// machine's unit is this run's, that unit is removed all the same (nothing
// else is known of the run) and nullopt returned.
std::optional<std::pair<FileLock, BootRunFile>> state_to_abort(const fs::path& path,
                                                               const fs::path& root) {
    std::optional<FileLock> lock;
    try {
        check_state_place(path);
        lock = stop_step_under_way(path);
        return std::pair{std::move(*lock), read_boot_run(path)};
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

// What a start holds while it builds and makes the run: one start at a
// time on the machine (looking at its unit, the live run's, and installing
// its own under this lock), and the run's step lock.
struct StartLocks {
    FileLock machine, step;
};

// The locks taken, and the results folder made, once the places are
// checked: a refused run leaves no lock file. The state is looked at under
// the step's lock: two starts at once make one run.
StartLocks take_start_locks(const BootState& state, const fs::path& path) {
    std::error_code ec;
    const fs::path machine_lock = machine_boot_lock_path(state.unit_root);
    fs::create_directories(machine_lock.parent_path(), ec);
    std::optional<FileLock> machine = FileLock::try_take(machine_lock);
    if (!machine)
        throw UsageError("another contest run --boot is starting on this machine (pid " +
                         std::to_string(FileLock::holder(machine_lock)) +
                         "): one --boot run at a time");
    refuse_another_live_run(state.unit_root, path);
    // What root makes for the run (label folders, result files, build
    // logs) must pass the next boot's checks: writable by root alone.
    ::umask(022);
    const fs::path folder = path.parent_path();
    make_results_folder(folder);
    check_results_folder(folder);
    std::optional<FileLock> step = FileLock::try_take(boot_lock_path(path));
    if (!step)
        throw UsageError("a --boot run is under way in " + folder.string() + " (pid " +
                         std::to_string(FileLock::holder(boot_lock_path(path))) +
                         "): see it with --boot-status, stop it with --boot-abort");
    // A journal there without the boot facts is the run's config alone,
    // given by the run's caller (contest run --journal): this run's.
    if (fs::exists(path, ec) &&
        JournalFile::read(path, "the boot run's journal").has(kBootStateSection))
        if (const BootState old = read_boot_state(path); !old.finished())
            refuse_run_under_way(path, old.phase);
    return {std::move(*machine), std::move(*step)};
}

// Every TREE@REF built, and only then, all built, their releases
// installed and initramfs made (the machine's tool, for the machine's own
// root alone), the labels' kernels resolved to IMAGE:INITRD and their
// builds recorded. Returns the releases it made (for a start refused after
// it to remove).
std::vector<std::string> built_labels(const RunConfig& config, const BootRunOptions& options,
                                      BootState& state, Progress& progress) {
    kbuild::BuildSettings build;
    build.workdir = config.workload.workdir;
    build.results_dir = config.results_dir;
    build.config_file = config.build_config;
    build.cache_max_gib = config.build_cache_max_gib;
    build.target = kbuild::BuildTarget::boot;
    build.option = "--boot";
    build.install_root = options.root;
    build.make_initramfs = fs::absolute(options.root).lexically_normal() == "/";
    auto built = kbuild::build_kernel_refs(config.kernels, build, progress);
    std::vector<std::string> made = kbuild::install_for_boot(built, build, progress);
    try {
        for (std::size_t i = 0; i < built.size() && i < state.labels.size(); ++i) {
            if (!built[i]) continue;
            BootLabel& label = state.labels[i];
            label.kernel = built[i]->image;
            resolve_kexec_kernel(label);
            label.built_release = built[i]->record.release;
            label.build = built[i]->record.to_json().dump();
        }
    } catch (...) {
        kbuild::remove_releases(made, options.root);
        throw;
    }
    return made;
}

// EnvironmentError naming each of the labels `which` takes whose kernel
// cannot be booted (boot_check: kexec's dry load, an entry's lookup).
void check_kernels(BootState& state, const BootRunOptions& options,
                   const std::function<bool(const BootLabel&)>& which) {
    std::vector<std::string> problems;
    for (auto& label : state.labels)
        if (which(label))
            if (auto why = boot_check(options.method, label, state.unit_root); !why.empty())
                problems.push_back(label.label + ": " + why);
    if (!problems.empty()) throw EnvironmentError("--boot: cannot boot " + join(problems, "; "));
}

// contest's copy and the kexec kernels' in results/.boot, the unit, and
// the run's journal at path with its state and its turns (one write): the
// run made. On a failure, what of it was made is removed.
void make_run_files(const BootState& state, const JournalTurns& turns, RunJournal journal,
                    const fs::path& path) {
    std::error_code ec;
    // A journal there already (a run's config its caller gave, an earlier
    // run's record) is kept as it was: the run's is written last, whole.
    const bool journal_there = fs::exists(fs::symlink_status(path, ec));
    try {
        const UniqueFd copies = open_copy_folder(path.parent_path());
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
        install_boot_unit(state.unit_root, state.binary, path, {fs::path(state.workdir)});
        journal.boot_run = state;
        journal.turns = turns;
        write_run_journal(path, journal);
    } catch (...) {
        if (!journal_there) fs::remove(path, ec);
        remove_run_files(path, state);
        throw;
    }
}

}  // namespace

BootStep start_boot_run(const RunConfig& config, const BootRunOptions& options,
                        Progress& progress) {
    check_run_options(config);
    const RunPlan plan = make_run_plan(config);
    const fs::path folder = boot_run_folder(config.results_dir);
    const fs::path path = folder / kRunJournalName;
    const RunningKernel k = running_kernel();
    // The user's words first (UsageError), then the machine: nothing made
    // yet, nothing built. A build may take an hour; every refusal that does
    // not need it comes before it.
    JournalTurns turns = planned_turns(plan);
    BootState state = planned_state(config, options, turns, k, folder);
    const BootPlaces places{folder, state.workdir, state.unit_root};
    check_boot_place_names(places);
    check_boot_places(places);
    check_boot_workdir(state.workdir);
    std::error_code ec;
    // An existing workdir checked now, as each step will open it (one of
    // another user's, or open to others, is refused); a missing one is
    // made once everything is checked.
    if (fs::exists(state.workdir, ec)) Workdir::open(state.workdir);
    // Everything checked before the first reboot: the kernels given, now;
    // those contest builds, once built.
    check_kernels(state, options,
                  [](const BootLabel& l) { return !kbuild::looks_like_kernel_ref(l.kernel); });
    const StartLocks locks = take_start_locks(state, path);
    std::vector<std::string> made_releases;
    try {
        made_releases = built_labels(config, options, state, progress);
        check_kernels(state, options, [](const BootLabel& l) { return !l.built_release.empty(); });
        Workdir::open(state.workdir);
        make_run_files(state, turns, journal_of(config, plan, state), path);
    } catch (...) {
        // A refusal, a build that failed, a disk full, a root that cannot
        // take the unit: nothing left of the run, no release installed.
        kbuild::remove_releases(made_releases, state.unit_root);
        remove_lock_file(path);
        throw;
    }
    const unsigned reboots = static_cast<unsigned>(turns.list.size()) + 1;
    progress.note("contest: " + std::to_string(turns.list.size()) + " turns (" +
                  std::to_string(state.labels.size()) + " kernels x " +
                  std::to_string(config.runs) + " rounds): " + std::to_string(reboots) +
                  " reboots (one a turn, one back), roughly " +
                  minutes_text(reboots * (options.method == BootMethod::kexec ? 60.0 : 120.0)) +
                  " of booting besides the runs; the state is " + path.string() +
                  " (contest run --boot-status, --boot-abort)");
    RunJournal journal = journal_of(config, plan, state);
    journal.config.containment = config.containment;
    return first_boot_step(path, state, turns, k, journal, progress);
}

BootStep continue_boot_run(const fs::path& path, const std::string& containment,
                           Progress& progress) {
    const std::optional<FileLock> lock = take_step_lock(path);
    if (!lock) return {};
    // The journal read once: its config, its turns and its boot facts, the
    // last checked as boot/ checks a state root steps on.
    RunJournal journal = read_boot_journal(path);
    if (!journal.boot_run)
        throw UsageError(printable(path.string()) + ": no boot_run section: not a --boot run's");
    check_boot_run(*journal.boot_run, path);
    BootState state = std::move(*journal.boot_run);
    JournalTurns turns = std::move(journal.turns);
    journal.boot_run.reset();
    journal.turns = {};
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
    journal.config.containment = containment;
    return step_after_boot(path, state, turns, k, journal, progress);
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
    BootState& state = taken->second.state;
    JournalTurns& turns = taken->second.turns;
    if (state.finished()) {
        // The unit may be left by a crash between the two: removed, when it
        // is still this run's (a later run may have replaced it).
        remove_own_boot_unit(state.unit_root, path);
        remove_lock_file(path);
        say(std::string("the boot run is ") + boot_phase_name(state.phase) + " already");
        return kExitOk;
    }
    for (auto& turn : turns.list)
        if (turn.status == TurnStatus::started) turn.status = TurnStatus::interrupted;
    // Nothing left that would boot a label's kernel at the next reboot; but
    // a machine whose unit is another run's is that run's to boot.
    if (const auto named = boot_unit_state(state.unit_root); named && *named != path) {
        say("the machine's unit is another --boot run's (" + printable(named->string()) +
            "): its kexec kernel and one-shot entry left alone");
    } else {
        disarm_next_boot(state);
    }
    finish_run(path, state, turns, BootPhase::aborted, "aborted by contest run --boot-abort");
    return kExitOk;
}

}  // namespace contest
