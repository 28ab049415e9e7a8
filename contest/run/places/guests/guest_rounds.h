#pragma once
// The rounds taken in QEMU guests (--kernel): a label's turn in a round is
// one guest of its kernel running the turn's loads; what the guest brought
// back goes into the label's file (its boot, its machine, its loads'
// facts) and its runs to the recorder. Under --duet, where the labels fit
// side by side on the host's CPUs, a round's guests are booted at once
// instead (duet_round.h), each on CPUs of its own (duet_cpus.h).
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/run/places/guests/duet_cpus.h"
#include "contest/run/places/guests/kernel_guests.h"
#include "contest/run/rounds/round_backend.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_plan.h"
#include "contest/sys/progress.h"

namespace contest {

class GuestRounds : public RoundBackend {
  public:
    // Makes every label's kernel ready (KernelGuests); the workload is
    // prepared, and the probes calibrated, in each guest. --duet: the
    // labels' CPU sets planned, or why not said in one line.
    GuestRounds(const RunConfig& config, RunPlan& plan, Progress& progress);

    std::optional<latency::LatencyPlan> plan_probes() override { return std::nullopt; }
    void describe(ResultFile& file, const LabelRun& label) const override;
    // --runs-per-boot: each planned run is N runs, which the ETA counts.
    void begin(RunRecorder& recorder) override;
    void take_turn(LabelRun& label, unsigned index, const std::vector<std::size_t>& loads,
                   RunRecorder& recorder) override;
    void take_round(const PlannedRound& round, RunRecorder& recorder) override;

  private:
    void say_runs(const LabelRun& label, const std::vector<RunRecord>& runs);
    std::vector<std::string> names_of(const std::vector<std::size_t>& loads) const;
    // config.vm.duet: asked, taken or why not, the CPU sets, the measures.
    nlohmann::json duet_record() const;

    const RunConfig& config_;
    std::vector<std::string_view> load_names_;
    std::uint64_t seed_;  // the plan's, each guest's own made from it (turn_seed)
    Progress& progress_;
    KernelGuests guests_;
    DuetCpus duet_;  // --duet: the labels' CPU sets (none: the turns one after another)
};

}  // namespace contest
