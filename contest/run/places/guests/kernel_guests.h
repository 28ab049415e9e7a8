#pragma once
// `contest run --kernel`: the kernels made ready (images resolved, each
// one's initramfs built, the accelerator chosen) before anything is
// measured, then one guest per kernel and round: a fresh scratch disk, the
// guest's own `contest run` of that round's loads, its result file read
// back from the results share, and its runs handed to the suite under the
// kernel's label. A guest that fails leaves failed runs with its reason.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"
#include "contest/run/places/delegated_turn.h"
#include "contest/run/record/label_run.h"
#include "contest/run/plan/run_config.h"
#include "contest/sys/progress.h"
#include "contest/sys/workdir.h"
#include "contest/vm/accel_choice.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"

namespace contest {

// What one guest brought back.
struct GuestRound {
    std::vector<RunRecord> runs;       // one per load asked for, failed ones included
    std::optional<ResultFile> result;  // the guest's own file, when it wrote one
    double up_s = 0, total_s = 0;      // boot to its init; start to QEMU's end
    std::string failure;               // why the guest failed ("" when it did not)
};

// One guest of a round made ready to boot: its scratch disk, its results
// share holding the turn's journal and command, and its QEMU boot.
struct GuestTurn {
    DelegatedTurn turn;
    GuestBoot boot;
    std::filesystem::path out;  // its results share, on this host
    std::string head;           // "[LABEL] round N", for the progress line
};

// The last lines of the guest's contest's output (out/guest.log), joined with " | ".
std::string guest_log_tail(const std::filesystem::path& out, int lines);

class KernelGuests {
  public:
    // Resolves and prepares every label's kernel (UsageError naming a bad
    // one), and chooses the accelerator.
    KernelGuests(const RunConfig& config, std::vector<LabelRun>& labels, Progress& progress);
    ~KernelGuests();
    KernelGuests(const KernelGuests&) = delete;
    KernelGuests& operator=(const KernelGuests&) = delete;

    // config.vm of every result file: accelerator, emulation, shape.
    nlohmann::json vm_record() const;
    // config.kernel of a label's file: its kernel's fingerprint and initramfs.
    static nlohmann::json kernel_record(const LabelRun& label);
    bool emulated() const { return accel_.accel == Accel::tcg; }

    // Boots the label's kernel for `round`, its guest running `loads` in
    // their order (its contest given --order rounds, and seed as its --seed).
    GuestRound run_round(const LabelRun& label, unsigned round,
                         const std::vector<std::string>& loads, std::uint64_t seed,
                         Progress& progress);

    // run_round's parts, for a caller that boots a round's guests at once
    // (duet_round.h). `slot` names the guest's disk and share apart from
    // the others' ("" for a guest alone, its share then out/); a guest in a
    // slot waits at the start barrier in its share (start_barrier.h).
    GuestTurn prepare_turn(const LabelRun& label, unsigned round,
                           const std::vector<std::string>& loads, std::uint64_t seed,
                           const std::string& slot, Progress& progress);
    // What the guest brought back, its runs failed with why when it failed.
    static GuestRound brought_back(const GuestTurn& guest, const GuestOutcome& outcome);

  private:
    // The label's kernel resolved and its initramfs built, with a note on
    // what it lacks.
    void prepare_kernel(LabelRun& label, Progress& progress);
    void make_scratch_disk(const KernelImage& kernel, const std::filesystem::path& disk);
    // The guest's command, its words NUL-separated: contest run --journal of
    // the turn's journal (delegated_turn.h), in a clean environment.
    std::string guest_argv() const;

    const RunConfig& config_;
    Workdir workdir_;
    std::string run_folder_;  // vm/run-<pid>, in the workdir: this run's disk, shares, consoles
    std::filesystem::path folder_;  // its real path
    AccelChoice accel_;
};

}  // namespace contest
