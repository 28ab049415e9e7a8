#include "contest/run/places/boot/boot_steps.h"

#include <optional>

#include "contest/boot/boot_files.h"
#include "contest/kbuild/boot_install.h"
#include "contest/run/plan/config_record.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/rounds/run_driver.h"
#include "contest/run/rounds/settle.h"
#include "contest/sys/errors.h"
#include "contest/sys/signals.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The most a boot waits, once up, for the machine to settle (the services
// started after it, their writeback) before its turn's runs.
constexpr double kBootSettleS = 60;

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

// Where a step asks for the next boot from: whether in the machine's own
// kernel (the one the run started in, or the one the firmware gave back
// after a detour), and the label whose kernel runs when it is a turn's.
struct BootingFrom {
    bool own_kernel = false;
    std::optional<std::size_t> label;
};

// The reboot place: its hooks around the one driver's loop (run_driver.h)
// in the boot `k` a step runs in: the turn this boot is for taken (its
// kernel checked first), the next turn's kernel armed (yields: the contest
// exits), the machine's default kernel asked for at the end. Each move
// writes the state before it asks the machine for a reboot, so that the
// next step (or --boot-status) reads what this one did.
class RebootPlace final : public JournalPlace {
  public:
    RebootPlace(fs::path path, BootState& state, JournalTurns& turns, RunningKernel k,
                const RunJournal& journal, Progress& progress)
        : path_(std::move(path)),
          state_(state),
          turns_(turns),
          k_(std::move(k)),
          journal_(journal),
          progress_(progress) {}

    // The first boot, asked from the kernel the run starts in. An
    // interrupt before the reboot is asked (Ctrl-C, SIGHUP, SIGTERM:
    // boot_label throws only then) leaves nothing armed: the kernel
    // unloaded or the one-shot entry cleared, the unit and the copies
    // removed, the state aborted.
    BootStep first_boot() {
        try {
            return advance({true, std::nullopt}, false);
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

    // A step after a boot: the boot recorded, then the way back or a
    // detour come back, or the driver's loop from the turn this boot is for.
    BootStep after_boot() {
        BootSeen& seen = record_boot();
        if (state_.phase == BootPhase::returning) return came_back(seen);
        if (state_.phase == BootPhase::detour) return detour_came_back(seen);
        if (turns_.next >= turns_.list.size()) {
            // The step before ended (a power cut, a failed save) between
            // the last turn and asking for the way back.
            seen.expected = "start";
            seen.outcome = "no turn left (the step before ended before asking for the way back)";
            return advance({home(), std::nullopt}, false);
        }
        return advance({home(), std::nullopt}, true);
    }

    // The run's end (the step yields: nothing after it); the bisection
    // that owns the run (contest bisect --boot's) named to the step's caller
    // once it is done or stopped, never when it was aborted, which takes
    // the bisection's journal on (drive/journal_continue.h).
    TurnTaken finish(BootPhase phase, const std::string& note) {
        step_ = finish_run(path_, state_, turns_, phase, note);
        // Only in a step after a boot (one is recorded), not in the start's
        // own contest (its first reboot refused): what started the run is
        // there to say so.
        if (phase != BootPhase::aborted && !state_.boots.empty()) step_.owner = state_.owner;
        return TurnTaken::yields;
    }

    // The next turn: taken, when this boot is the one armed for it; else
    // its kernel armed (yields), or recorded boot_failed when the machine's
    // own kernel cannot boot it; another kernel that cannot is blamed
    // itself, and the machine's own tries again (detour). At --boot-max the
    // turns end.
    TurnTaken take_next() override {
        JournalTurn& turn = turns_.list[turns_.next];
        if (booted_for_next_) {
            booted_for_next_ = false;
            return take_booted(turn);
        }
        if (state_.boots_asked + 1 >= state_.boot_max) {
            state_.note = "stopped at --boot-max " + std::to_string(state_.boot_max) + " boots";
            return TurnTaken::ends;
        }
        const BootLabel& label = state_.labels[turn.label];
        throw_if_interrupted();  // --boot-abort: no reboot after it
        const std::string running =
            from_.label ? state_.labels[*from_.label].label + "'s kernel (" + k_.release + ")"
                        : "the running kernel " + k_.release;
        if (!from_.own_kernel && from_.label &&
            !state_.labels[*from_.label].cannot_boot_next.empty())
            return detour(running + " could not boot the next kernel before (" +
                          state_.labels[*from_.label].cannot_boot_next + ")");
        ++state_.boots_asked;
        save();
        progress_.note("contest: round " + std::to_string(turn.round) + ": booting " + label.label +
                       " (" + boot_method_name(state_.method) + ", boot " +
                       std::to_string(state_.boots_asked) + " of at most " +
                       std::to_string(state_.boot_max) + ")");
        const std::string why = boot_label(state_.method, booted_files(state_, turn.label));
        if (why.empty()) return TurnTaken::yields;  // the reboot is under way
        if (!from_.own_kernel)
            return detour(running + " cannot boot " + label.label + "'s: " + why);
        const std::string reason = "cannot boot " + label.label + ": " + why;
        say(reason);
        record_boot_failed(state_, turn, reason, k_, journal_);
        turns_.mark(turns_.next, TurnStatus::boot_failed);
        if (state_.stop_on_failure) return finish(BootPhase::stopped, reason);
        save();
        return TurnTaken::taken;
    }

    // Every turn taken (or --boot-max reached): the machine's own kernel
    // asked for, or the run ended when this boot is in it already.
    void end() override {
        if (from_.own_kernel) {
            finish(end_phase(turns_), state_.note);
            return;
        }
        throw_if_interrupted();
        state_.phase = BootPhase::returning;
        ++state_.boots_asked;
        save();
        progress_.note("contest: every turn taken: rebooting into the machine's default kernel");
        const std::string why = reboot_default(state_.method);
        if (!why.empty()) finish(end_phase(turns_), "the reboot back was refused: " + why);
    }

  private:
    void save() { write_boot_run(path_, state_, turns_); }
    bool home() const { return in_start_kernel(state_, k_); }

    // The driver's loop from `from`; `booted_for_next`: this boot is the
    // one the step before armed for the next turn.
    BootStep advance(const BootingFrom& from, bool booted_for_next) {
        from_ = from;
        booted_for_next_ = booted_for_next;
        drive_turns(turns_, *this);
        return step_;
    }

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
        finish(end_phase(turns_), home() ? state_.note : "came " + seen.outcome);
        return step_;
    }

    // Back through the firmware after a kernel that could not boot the
    // next turn's: the machine's own kernel boots it.
    BootStep detour_came_back(BootSeen& seen) {
        seen.expected = "start";
        seen.outcome = "through the firmware, for the next turn" + (home() ? "" : ", " + where());
        state_.phase = BootPhase::running;
        return advance({true, std::nullopt}, false);
    }

    // The turn this boot is for: taken, or recorded boot_failed when the
    // boot is not its label's kernel's (or the machine rebooted during it).
    TurnTaken take_booted(JournalTurn& turn) {
        BootSeen& seen = state_.boots.back();
        const BootLabel& label = state_.labels[turn.label];
        seen.expected = label.label;
        std::string failure = turn.status == TurnStatus::started
                                  ? "the machine rebooted during the turn's runs"
                                  : not_the_labels_kernel(state_.method, label, k_);
        if (!failure.empty()) return turn_not_booted(seen, turn, failure);
        take_turn(seen, turn);
        from_ = {home(), turn.label};
        return TurnTaken::taken;
    }

    // This boot is not the turn's kernel's (or the machine rebooted during
    // the turn): the turn's runs recorded boot_failed, and the next asked.
    TurnTaken turn_not_booted(BootSeen& seen, JournalTurn& turn, std::string failure) {
        failure += "; " + previous_boot_tail();
        seen.outcome = "boot_failed: " + failure;
        say("round " + std::to_string(turn.round) + " " + state_.labels[turn.label].label + ": " +
            failure);
        // The state first: a failure to write the file is not a turn taken twice.
        turns_.mark(turns_.next, TurnStatus::boot_failed);
        save();
        record_boot_failed(state_, turn, failure, k_, journal_);
        if (state_.stop_on_failure) return finish(BootPhase::stopped, failure);
        from_ = {home(), std::nullopt};
        return TurnTaken::taken;
    }

    // The turn's runs, once the machine settled; the state says `started`
    // while they run (a reboot meanwhile is that turn's failure).
    void take_turn(BootSeen& seen, JournalTurn& turn) {
        const std::string& label = state_.labels[turn.label].label;
        const std::string up = std::to_string(static_cast<int>(k_.up_s)) + " s";
        progress_.status("contest: " + label + " up after " + up + ": settling");
        // A test's made-up boot (kTestRunningKernelVariable) has nothing to settle.
        const Settled settled = settle_machine(k_.stand_in ? 0 : kBootSettleS);
        seen.settled = settled.state;
        turns_.mark(turns_.next, TurnStatus::started);
        save();
        progress_.note("contest: round " + std::to_string(turn.round) + " under " + label + " (" +
                       k_.release + "), up " + up + ", " + settled.state);
        take_boot_turn(state_, turn, k_, journal_, progress_);
        turns_.mark(turns_.next, TurnStatus::done);
        seen.outcome = "measured";
        save();
    }

    // A kernel other than the machine's own that cannot boot the next
    // turn's (a label's built without kexec, or without the loader's
    // tools): not the next turn's fault. Recorded against the running label
    // (once: its file and the state keep the first why) and this boot;
    // then a reboot through the firmware, whose kernel boots the next turn.
    TurnTaken detour(const std::string& why) {
        if (from_.label) {
            BootLabel& running = state_.labels[*from_.label];
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
            return finish(end_phase(turns_),
                          "the reboot through the firmware was refused: " + refused);
        return TurnTaken::yields;  // the reboot is under way
    }

    const fs::path path_;
    BootState& state_;
    JournalTurns& turns_;
    const RunningKernel k_;
    const RunJournal& journal_;
    Progress& progress_;
    BootingFrom from_;
    bool booted_for_next_ = false;
    BootStep step_;  // what the step leaves: set by finish, else empty (a reboot asked)
};

}  // namespace

BootStep finish_run(const fs::path& path, BootState& state, const JournalTurns& turns,
                    BootPhase phase, const std::string& note) {
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
    write_boot_run(path, state, turns);
    remove_lock_file(path);
    say(std::string("the boot run is ") + boot_phase_name(phase) +
        (note.empty() ? "" : ": " + note));
    return step;
}

BootStep first_boot_step(const fs::path& state_path, BootState& state, JournalTurns& turns,
                         const RunningKernel& k, const RunJournal& journal, Progress& progress) {
    return RebootPlace(state_path, state, turns, k, journal, progress).first_boot();
}

BootStep step_after_boot(const fs::path& state_path, BootState& state, JournalTurns& turns,
                         const RunningKernel& k, const RunJournal& journal, Progress& progress) {
    return RebootPlace(state_path, state, turns, k, journal, progress).after_boot();
}

}  // namespace contest
