// The host: the rounds run on this machine as it runs; its labels are
// --vary's combinations of values (the knobs set for each run), or the -k
// label alone. Its runs are taken in this contest (place_life.h).
#include "contest/run/places/host/host_rounds.h"
#include "contest/run/places/run_here_life.h"
#include "contest/run/plan/places.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

// Each combination's label (--vary-label), checked as -k's and refused when
// two combinations would share one; the -k label alone without --vary.
std::vector<LabelRun> vary_labels(const RunConfig& config, const RunPlan& plan) {
    std::vector<LabelRun> labels;
    for (const auto& combination : vary_combinations(plan.knobs)) {
        const std::string name = plan.knobs.empty() ? config.label
                                                    : vary_label(config.vary_label, config.label,
                                                                 plan.knobs, combination);
        check_label_name(name, "--vary: the label",
                         " (--vary-label '" + printable(config.vary_label) + "')");
        for (const auto& other : labels)
            if (other.label == name)
                throw UsageError("--vary-label '" + config.vary_label +
                                 "' gives two combinations the label '" + name + "'");
        LabelRun& label = labels.emplace_back();
        label.label = name;
        label.combination = combination;
    }
    return labels;
}

}  // namespace

std::unique_ptr<RoundBackend> host_round_backend(const RunConfig& config, RunPlan& plan,
                                                 std::optional<KnobGuard>& knob_guard,
                                                 Progress& progress) {
    return std::make_unique<HostRounds>(config, plan, knob_guard, progress);
}

namespace {

// No option of its own: its life is a run's taken here.
PlaceOptions host_options(RunConfig&) {
    PlaceOptions options;
    options.life = run_here_life();
    return options;
}

}  // namespace

extern const PlaceInfo kHostPlace{
    .place = RunPlace::host,
    .name = "host",
    .option = "",
    .value_name = "",
    .excludes = {},
    .options = host_options,
    .labels = vary_labels,
    .runs = plan_runs,
    .backend = host_round_backend,
    // Its run of a journal alone: taken here, as a run of its words is.
    .journal_life = [](const RunJournal&) { return run_here_life(); },
};

}  // namespace contest
