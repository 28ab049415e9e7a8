// --boot: every round boots this machine into each label's kernel, one
// reboot a turn; each boot's step (contest/boot/boot_run.h, started by the
// unit) takes its one turn on this host, with the host's backend.
#include "contest/run/boot_options.h"
#include "contest/run/places.h"
#include "contest/run/run_plan.h"
#include "contest/sys/text.h"

namespace contest {

extern const PlaceInfo kBootPlace;

namespace {

// --boot LABEL=KERNEL and its --boot-* options: kernels booted on this
// machine, one reboot a turn (docs/boot.md). What they give beyond the
// config (BootArguments) is read by the CLI, which starts, steps, shows
// and stops a --boot run.
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
    options.finish = [a](const OptionGiven&, RunConfig& c) {
        if (c.place == RunPlace::boot) c.kernels = label_specs(a->kernels);
        c.boot_appends = label_specs(a->appends);
    };
    options.held = std::shared_ptr<const BootArguments>(a);
    return options;
}

}  // namespace

extern const PlaceInfo kBootPlace{
    .place = RunPlace::boot,
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
    .across_reboots = true,
    .options = boot_options,
    .labels = kernel_labels,
    .runs = plan_kernel_runs,
    .backend = host_round_backend,  // a turn is a host run's
};

}  // namespace contest
