#include "contest/run/guest_rounds.h"

#include <string>

#include "contest/result/guest_fields.h"

namespace contest {

GuestRounds::GuestRounds(const RunConfig& config, RunPlan& plan, Progress& progress)
    : config_(config),
      load_names_(plan.load_names),
      seed_(plan.seed),
      progress_(progress),
      guests_(config, plan.labels, progress) {}

void GuestRounds::describe(ResultFile& file, const LabelRun& label) const {
    record_guest_setup(file, guests_.vm_record(), KernelGuests::kernel_record(label));
}

void GuestRounds::take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                            RunRecorder& recorder) {
    std::vector<std::string> names;
    for (const std::size_t k : loads) names.emplace_back(load_names_[k]);
    const GuestRound got =
        guests_.run_round(label, index, names, guest_seed(seed_, index, label.index), progress_);
    if (got.result) take_guest_facts(label.result, *got.result);
    record_guest_boot(label.result, index, got.up_s, got.total_s);
    say_runs(label, got.runs);
    recorder.record(label, got.runs, got.total_s);
}

// Each run's line, as a host run's is said when it finishes, and why a
// failed one failed.
void GuestRounds::say_runs(const LabelRun& label, const std::vector<RunRecord>& runs) {
    for (const auto& rec : runs) {
        progress_.note(run_summary_line(rec.load + "  run " + std::to_string(rec.index) + "/" +
                                            std::to_string(config_.runs) + "  [" + label.label +
                                            "]",
                                        rec));
        if (!rec.ok())
            say(rec.load + " run " + std::to_string(rec.index) + " [" + label.label +
                "]: " + rec.reason);
    }
}

}  // namespace contest
