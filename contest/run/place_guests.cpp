// --kernel: every round boots each label's kernel in a QEMU guest, whose
// own contest runs that round's loads (guest_rounds.h, kernel_guests.h).
#include "contest/kbuild/built_kernels.h"
#include "contest/run/guest_rounds.h"
#include "contest/run/places.h"
#include "contest/run/run_plan.h"

namespace contest {
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

}  // namespace

extern const PlaceInfo kGuestsPlace{
    .place = RunPlace::guests,
    .option = "kernel",
    .value_name = "IMAGE",
    .excludes =
        {
            kKernelsTakeRounds,
            {"vary", "", "the knobs would be set on the host"},
            {"resume", "", "a --kernel run cannot be continued yet"},
            kKernelsNameLabels,
            {"latency-raw", "", "the samples would stay in the guest"},
        },
    .delegates_turns = true,
    .labels = guest_labels,
    .runs = plan_kernel_runs,
    .backend = guest_backend,
};

}  // namespace contest
