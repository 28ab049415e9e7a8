// --boot: every round boots this machine into each label's kernel, one
// reboot a turn; each boot's step (boot_run.h, started by the unit) takes
// its one turn on this host, with the host's backend. Its life: a start
// that plans, builds and arms the first reboot; an advance a boot
// (--boot-continue); its status (--boot-status) and abort (--boot-abort).
#include <iostream>

#include "contest/boot/boot_files.h"
#include "contest/boot/boot_options.h"
#include "contest/boot/boot_status.h"
#include "contest/report/outputs.h"
#include "contest/run/places/boot/boot_run.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_journal.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

extern const PlaceInfo kBootPlace;

namespace {

namespace fs = std::filesystem;

// --boot's options as parsed: the kernels and their parameters for the
// config, the rest for the start (options()) or for the verb they ask of
// the run's life (--boot-status, --boot-abort, --boot-continue).
struct BootArguments {
    std::vector<std::string> kernels;  // --boot LABEL=KERNEL
    std::vector<std::string> appends;  // --boot-append LABEL=ARGS
    std::string method = "kexec", on_failure = "continue", continue_journal, root = "/";
    unsigned max = 0;
    bool status = false, abort = false, keep_built = false;

    // The start's options, of the words checked as they were parsed.
    BootRunOptions options() const {
        BootRunOptions o;
        o.method = parse_boot_method(method);
        o.boot_max = max;
        o.stop_on_failure = on_failure == "stop";
        o.keep_built = keep_built;
        o.root = root;
        return o;
    }
};

// --boot-status's model (report/boot_status_text.h): the run the folder's
// journal holds, its turns counted and their labels named.
BootStatus boot_status_of(const fs::path& results, const BootRunLook& look) {
    BootStatus out;
    out.results = results.string();
    if (!look.run) return out;
    const BootState& s = look.run->state;
    out.found = true;
    out.started_at = s.started_at;
    out.phase = boot_phase_name(s.phase);
    out.note = s.note;
    out.method = boot_method_name(s.method);
    out.boots_asked = s.boots_asked;
    out.boot_max = s.boot_max;
    out.start_release = s.start_release;
    out.start_cmdline = s.start_cmdline;
    for (const auto& l : s.labels) out.labels.push_back({l.label, l.kernel, l.cmdline});
    for (const auto& t : look.run->turns.list) {
        out.taken += t.status == TurnStatus::done;
        out.failed += t.status == TurnStatus::boot_failed;
        out.turns.push_back({t.round, s.labels[t.label].label, turn_status_name(t.status)});
    }
    for (const auto& b : s.boots)
        out.boots.push_back({b.at, b.expected, b.release, b.up_s, b.outcome});
    out.step = look.step;
    if (look.unit_journal == look.journal)
        out.unit = look.unit.string();
    else if (look.unit_journal)
        out.other_unit = look.unit_journal->string();
    return out;
}

// A --boot run's life, bound to its options (or to those a run's journal
// kept: journal_life). None opens the workdir of its own words: a refused
// start makes nothing, and the unit's step (no HOME: its default workdir
// would be in /tmp, where anyone can make it first) uses the one its
// journal recorded. A start's config is made of its words resolved
// (LifeStart::resolved_for_root), or is its journal's, and kept in the
// run's journal: each step reads that, and parses no word.
class BootLife final : public PlaceLife {
  public:
    explicit BootLife(std::shared_ptr<const BootArguments> a) : a_(std::move(a)) {}
    explicit BootLife(BootRunOptions kept) : kept_(std::move(kept)) {}

    std::optional<LifeAsked> asked() const override {
        if (!a_) return std::nullopt;
        return verb_options_asked("boot", a_->status, a_->abort, a_->continue_journal);
    }

    // The run planned, built and its first reboot asked: it goes on after
    // this contest. Its journal is its results folder's (a journal given,
    // start.journal, must be that file: the unit's steps read it there).
    LifeStep start(const LifeStart& start, Progress& progress) override {
        RunConfig config = start.resolved_for_root ? start.resolved_for_root() : start.config;
        if (!start.journal.empty()) check_given_journal(start.journal, config);
        const auto containment = RunContainment::unless_held(config.containment);
        LifeStep step = step_of(start_boot_run(config, options(), progress));
        step.yields = true;
        return step;
    }

    // This boot takes one turn of the run its journal holds; a step that
    // ended a run another journal owns hands its containment on.
    LifeStep advance(const fs::path& journal, Progress& progress) override {
        std::shared_ptr<RunContainment> containment = RunContainment::set_up();
        LifeStep step = step_of(continue_boot_run(journal, containment->description(), progress));
        if (!step.owner.empty()) step.containment = std::move(containment);
        return step;
    }

    int status(const fs::path& results) override {
        std::cout << find_output("text", OutputUse::boot_status)
                         .boot_status(boot_status_of(results, look_at_boot_run(results)));
        return kExitOk;
    }

    int abort(const fs::path& results) override { return abort_boot_run(results, options().root); }

    void keep_own(RunJournal& journal) const override {
        journal.boot = options();
        journal.boot->root = fs::absolute(journal.boot->root).lexically_normal();
    }

  private:
    BootRunOptions options() const { return a_ ? a_->options() : kept_; }

    // UsageError, one line, for a journal given elsewhere than where the
    // run's steps read it: RESULTS/.run-journal, RESULTS the config's.
    static void check_given_journal(const fs::path& given, const RunConfig& config) {
        const fs::path at = boot_run_folder(config.results_dir) / kRunJournalName;
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(fs::absolute(given), ec);
        if (ec || real != at)
            throw UsageError("--journal " + printable(given.string()) +
                             ": a --boot run's journal is its results folder's, " +
                             printable(at.string()) + ": write it there");
    }

    static LifeStep step_of(const BootStep& step) {
        LifeStep out;
        out.exit_code = step.exit_code;
        out.finished = step.finished;
        out.owner = step.owner;
        return out;
    }

    std::shared_ptr<const BootArguments> a_;
    BootRunOptions kept_;
};

// The life of a --boot run a journal holds: how it boots, as its start
// kept it (keep_own), its config the journal's.
std::shared_ptr<PlaceLife> boot_journal_life(const RunJournal& journal) {
    if (!journal.boot)
        throw UsageError("a --boot run's journal needs its boot section (how the run boots)");
    return std::make_shared<BootLife>(*journal.boot);
}

// --boot LABEL=KERNEL and its --boot-* options: kernels booted on this
// machine, one reboot a turn (docs/boot.md). What they give beyond the
// config (BootArguments) is the run's life's, which starts, steps, shows
// and stops it.
PlaceOptions boot_options(RunConfig&) {
    using enum OptionScope;
    auto a = std::make_shared<BootArguments>();
    PlaceOptions options;
    // clang-format off
    options.rows = {
        place_option_row(kBootPlace, &a->kernels,
         "once or more: every round reboots this machine into each kernel and runs the loads there; KERNEL: a release "
         "(/boot/vmlinuz-R), an image, IMAGE:INITRD, a grub / systemd-boot entry (docs/boot.md), or TREE@REF[+PATCH][%OPTIONS] (kexec; with the label's own config options, if any; built as the user contest runs "
         "as, root: its Makefiles run as root; docs/kernel-builds.md); its config is resolved once, at the start, into its journal (the --config file merged, "
         "paths absolute): no later step reads a user's file"),
        {"boot-append", host, Needs{{"boot", "kernel"}}, checked(&a->appends, [](const std::vector<std::string>& s) { check_label_spec("boot-append", "ARGS", s, true); })->value_name("LABEL=ARGS"),
         "kernel parameters of that label's boots, after the others"},
        {"boot-method", host, Needs{{"boot"}}, checked(&a->method, [](const std::string& m) { parse_boot_method(m); })->default_value(a->method)->value_name("M"),
         "kexec (default) | grub (grub-reboot) | systemd-boot (bootctl set-oneshot)"},
        {"boot-max", host, Needs{{"boot"}}, bounded(&a->max, 1u, 100000u)->value_name("N"), "at most N reboots (default: two a turn: one a turn, a detour through the firmware after each but the last, one back)"},
        {"boot-on-failure", host, Needs{{"boot"}}, checked(&a->on_failure, [](const std::string& w) { if (w != "continue" && w != "stop") throw UsageError("--boot-on-failure '" + printable(w) + "': expected continue or stop"); })->default_value(a->on_failure)->value_name("W"),
         "after a kernel that did not boot, continue (its runs boot_failed) or stop"},
        {"boot-keep-built", host, Needs{{"boot"}}, po::bool_switch(&a->keep_built), "keep the releases contest built for TREE@REF kernels installed after the run (default: removed)"},
        {"boot-root", host, Needs{{"boot", "boot-abort"}}, po::value(&a->root)->default_value(a->root)->value_name("D"), "the root the resuming unit is installed under"},
        {"boot-status", host, po::bool_switch(&a->status), "say how the --boot run in --results stands"},
        {"boot-abort", host, po::bool_switch(&a->abort), "stop the --boot run in --results: its unit removed, no further reboot"},
        {"boot-continue", host, po::value(&a->continue_journal)->value_name("JOURNAL"), "(run by contest's unit after each boot) the next turn of the --boot run whose journal (and state) JOURNAL is"},
    };
    // clang-format on
    // --boot-append is --kernel's too.
    options.finish = [a](const ParsedWords&, RunConfig& c) {
        if (c.place == RunPlace::boot) c.kernels = label_specs(a->kernels);
        c.boot_appends = label_specs(a->appends);
    };
    options.life = std::make_shared<BootLife>(a);
    return options;
}

}  // namespace

extern const PlaceInfo kBootPlace{
    .place = RunPlace::boot,
    .name = "boot",
    .option = "boot",
    .value_name = "KERNEL",
    .excludes =
        {
            kKernelsTakeRounds,
            {"vary", "", ""},
            {"resume", "", "a --boot run resumes by itself"},
            {"runs", "auto", "not yet"},
            kKernelsNameLabels,
        },
    .options = boot_options,
    .labels = kernel_labels,
    .runs = plan_kernel_runs,
    .backend = host_round_backend,  // a turn is a host run's
    .journal_life = boot_journal_life,
};

}  // namespace contest
