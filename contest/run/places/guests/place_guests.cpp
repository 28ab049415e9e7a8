// --kernel: every round boots each label's kernel in a QEMU guest, whose
// own contest runs that round's loads (guest_rounds.h, kernel_guests.h).
#include "contest/kbuild/built_kernels.h"
#include "contest/run/places/guests/guest_rounds.h"
#include "contest/run/places/run_here_life.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/text.h"

namespace contest {

extern const PlaceInfo kGuestsPlace;

namespace {

std::vector<LabelRun> guest_labels(const RunConfig& config, const RunPlan& plan) {
    std::vector<LabelRun> labels = kernel_labels(config, plan);
    for (std::size_t i = 0; i < labels.size(); ++i)
        labels[i].kernel.emplace().image = config.kernels[i].image;
    return labels;
}

std::unique_ptr<RoundBackend> guest_backend(const RunConfig& config, RunPlan& plan,
                                            std::optional<KnobGuard>&, Progress& progress) {
    // Every TREE@REF built (or found built) before the first round.
    kbuild::BuildSettings settings;
    settings.workdir = config.workload.workdir;
    settings.results_dir = config.results_dir;
    settings.config_file = config.build_config;
    settings.cache_max_gib = config.build_cache_max_gib;
    const auto built = kbuild::build_kernel_refs(config.kernels, settings, progress);
    for (std::size_t i = 0; i < built.size() && i < plan.labels.size(); ++i)
        if (built[i]) {
            plan.labels[i].kernel->image = built[i]->image;
            plan.labels[i].kernel->build = built[i]->record.to_json();
        }
    return std::make_unique<GuestRounds>(config, plan, progress);
}

void check_vm_accel(const std::string& accel) {
    if (accel != "auto" && accel != "kvm" && accel != "tcg")
        throw UsageError("--vm-accel '" + printable(accel) + "': expected auto, kvm or tcg");
}

// What the rows bind that is no field of the config as it stands.
struct GuestsArguments {
    std::vector<std::string> kernels;  // --kernel's LABEL=IMAGE words
    unsigned runs_per_boot = 1;        // as parsed, before it is known to be given
};

// --kernel LABEL=IMAGE and its --vm-* options: the host's, which boots the
// guests; the build's options serve --boot's kernels too.
PlaceOptions guest_options(RunConfig& config) {
    using enum OptionScope;
    auto a = std::make_shared<GuestsArguments>();
    VmOptions& vm = config.vm;
    PlaceOptions options;
    // clang-format off
    options.rows = {
        place_option_row(kGuestsPlace, &a->kernels,
         "once or more: every round boots each kernel in a QEMU guest and runs the loads there; IMAGE: "
         "a bzImage, a kernel build tree, a linux-image-* .deb or package name (docs/kernels.md), or TREE@REF[+PATCH][%CONFIG_X=V|%FRAGMENT...], built by contest with the label's own config options, if any (docs/kernel-builds.md)"),
        {"build-config", host, Needs{{"kernel", "boot"}}, po::value(&config.build_config)->value_name("FILE"),
         "the .config every TREE@REF kernel is built from, through olddefconfig (default: --kernel, tinyconfig + "
         "kvm_guest.config + the guests' needs; --boot, the running kernel's; docs/kernel-builds.md)"},
        {"build-cache-max", host, Needs{{"kernel", "boot"}}, bounded(&config.build_cache_max_gib, 0.0, 1048576.0)->default_value(config.build_cache_max_gib)->value_name("GiB"),
         "the workdir's cache of TREE@REF kernels contest built holds at most this: once a run's are built, the least recently used "
         "others are removed (a --boot build with its modules is hundreds of MB; 0 keeps only the run's own)"},
        {"vm-accel", host, Needs{{"kernel"}}, checked(&vm.accel, check_vm_accel)->default_value(vm.accel)->value_name("ACCEL"),
         "kvm | tcg (emulated) | auto (a short probe boot tries KVM, else TCG)"},
        {"vm-cpus", host, Needs{{"kernel"}}, bounded(&vm.shape.cpus, 1u, 64u)->default_value(vm.shape.cpus)->value_name("N"), "the guests' CPUs"},
        {"vm-memory", host, Needs{{"kernel"}}, bounded(&vm.shape.memory_mib, 256u, 1048576u)->default_value(vm.shape.memory_mib)->value_name("MiB"), "the guests' memory"},
        {"vm-disk", host, Needs{{"kernel"}}, bounded(&vm.disk_mib, 64u, 1048576u)->default_value(vm.disk_mib)->value_name("MiB"), "the guests' scratch disk (sparse ext4 image in the workdir)"},
        {"vm-boot-timeout", host, Needs{{"kernel"}}, bounded(&vm.boot_timeout_s, 1.0, 86400.0)->default_value(vm.boot_timeout_s)->value_name("S"),
         "a guest not up after S seconds is killed, its runs failed"},
        {"vm-timeout", host, Needs{{"kernel"}}, bounded(&vm.timeout_s, 1.0, 604800.0)->default_value(vm.timeout_s)->value_name("S"),
         "a guest still running after S seconds (S times --runs-per-boot) is killed, its runs failed"},
        {"vm-append", host, Needs{{"kernel"}}, po::value(&vm.append)->value_name("ARGS"), "more kernel parameters for every guest"},
        {"duet", host, Needs{{"kernel"}}, po::bool_switch(&vm.duet),
         "each round's guests at once, each on --vm-cpus host CPUs of its own (the sets passed from label to label round by round), "
         "each run's load and workload started in every guest together (docs/kernels.md, Duet guests); where the labels do not fit "
         "side by side on the host's CPUs, said in one line, and the guests one after another. Under TCG here, over two kernels and "
         "two workloads, it took 0.79 of the order's MDE on Time at equal wall time (95% interval 0.61-1.01) and 0.37 on p99 "
         "wake-up latency; with guests on every host CPU nothing is left for QEMU's own threads (docs/noise.md)"},
        {"runs-per-boot", host, Needs{{"kernel"}}, bounded(&a->runs_per_boot, 1u, 1000u)->value_name("N"),
         "each guest, once booted, takes its round's loads N times before it shuts down, each time runs of their own (recorded with "
         "their boot and their place in it), so that report and compare can tell the noise between boots from the noise within one "
         "(docs/kernels.md, Runs per boot; default 1)"},
    };
    // clang-format on
    // Each turn's contest runs the config of the options that reach it,
    // made once, now (delegated_turn.h).
    options.finish = [a](const ParsedWords& words, RunConfig& c) {
        if (c.place == RunPlace::guests) {
            c.kernels = label_specs(a->kernels);
            c.delegated = std::make_shared<const RunConfig>(words.delegated_config());
        }
        if (words.given("runs-per-boot")) c.vm.runs_per_boot = a->runs_per_boot;
    };
    // The host boots the guests and takes the run to its end.
    options.life = run_here_life();
    return options;
}

}  // namespace

extern const PlaceInfo kGuestsPlace{
    .place = RunPlace::guests,
    .name = "guests",
    .option = "kernel",
    .value_name = "IMAGE",
    .excludes =
        {
            kKernelsTakeRounds,
            {"vary", "", "the knobs would be set on the host"},
            kKernelsNameLabels,
            {"latency-raw", "", "the samples would stay in the guest"},
        },
    .options = guest_options,
    .labels = guest_labels,
    .runs = plan_kernel_runs,
    .backend = guest_backend,
    // Its run of a journal alone: taken here, as a run of its words is.
    .journal_life = [](const RunJournal&) { return run_here_life(); },
};

}  // namespace contest
