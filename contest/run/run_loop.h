#pragma once
// `contest run`: its config, its outcome, and the loop that takes the
// planned rounds in order (run_plan.h), each label's turn taken where its
// runs run (round_backend.h: on this host or in a guest) and every run
// saved as it comes back, until the plan is done, --runs auto has enough,
// a save fails or the user stops it.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/latency/latency_probes.h"
#include "contest/result/result_file.h"
#include "contest/run/auto_runs.h"
#include "contest/run/knobs.h"
#include "contest/run/label_run.h"
#include "contest/run/round_backend.h"
#include "contest/run/run_order.h"
#include "contest/run/run_place.h"
#include "contest/sys/progress.h"
#include "contest/vm/guest.h"
#include "contest/vm/kernel_image.h"
#include "loads/load.h"
#include "workloads/workload.h"

namespace contest {

struct RunPlan;

struct RunConfig {
    std::string label;
    unsigned runs = 3;
    std::vector<std::string> loads{"default"};
    WorkloadOptions workload;
    LoadOptions load;
    std::filesystem::path results_dir = "results";
    double warmup_s = 3.0;    // a load's time to get going before the workload starts
    bool drop_caches = true;  // before every run but cacherun's, where permitted
    double settle_s = 0;      // before every run, at most this long for the machine to settle
    RunOrder order = RunOrder::shuffled;
    std::optional<std::uint64_t> seed;  // of the shuffle; unset: a random one, recorded
    std::optional<AutoRuns> auto_runs;  // --runs auto (runs is then its max_runs)
    // Why a kernel is slower: perf counters on the workload's
    // tree (--perf), and the machine sampled over its window (0: off).
    bool perf = false;
    double timeline_hz = 10;
    // --latency: the probes to run during every workload run (empty: none),
    // and the bucket width of their distribution (--latency-dist).
    std::vector<latency::ProbeOptions> latency_probes;
    std::int64_t latency_dist_ns = 1000;
    std::optional<double> timeout_s;            // --timeout: a workload run is stopped after this
    double timeout_s_value = 0;                 // as parsed, before it is known to be given
    std::filesystem::path resume;               // --resume: the interrupted result file to continue
    std::string containment;                    // how the runs' processes are held (RunContainment)
    std::vector<VarySpec> vary;                 // --vary: knobs set round by round (docs/vary.md)
    std::string vary_label = "{label},{vary}";  // --vary-label: each combination's label
    // The words after `contest` as given, recorded so a reader can repeat the run.
    std::vector<std::string> command_line;
    // Where the rounds run (places.h): chosen once, from the options.
    RunPlace place = RunPlace::host;
    // --kernel or --boot (as `place` says): each label's kernel, booted
    // every round in a QEMU guest (docs/kernels.md) or on this machine, one
    // reboot a turn (docs/boot.md).
    std::vector<KernelSpec> kernels;
    // --kernel: the guests' machine, and the options each guest's contest
    // is given (the workload's, the loads' and the probes', as given).
    VmOptions vm;
    std::vector<std::string> guest_arguments;
    // --boot-append LABEL=ARGS: a label's own kernel parameters, for --boot
    // and --kernel alike (KernelSpec's image holds the ARGS).
    std::vector<KernelSpec> boot_appends;
    // The parameters given to `label` by --boot-append ("" when none).
    std::string append_of(const std::string& label) const;
};

struct RunOutcome {
    // One per --vary combination or per kernel; the -k label alone otherwise;
    // each with its file and where that was saved.
    std::vector<LabelRun> labels;
    int failed_runs = 0;
    // Set when saving a result file failed: the suite stopped there, the
    // runs are all in the labels' files, the file on disk holds the last
    // good save (or does not exist when no save succeeded).
    std::string save_failure;
};

// How the loop's labels get their files, and how it leaves them: what
// differs between a whole run (run_suite: new files, or the resumed one;
// complete at the end) and a --boot step's one turn (each label's own file
// from the run's state; not complete: the run goes on after a reboot).
struct LabelFiles {
    // Moves plan.labels into out.labels, each with its file open.
    std::function<void(RunPlan& plan, const RoundBackend& backend, const nlohmann::json& record,
                       RunOutcome& out)>
        open;
    bool complete_at_end = true;
};

// The one loop that takes turns, whoever plans them: the plan's rounds in
// order, each label's turn taken by the backend and every run saved as it
// comes back, until the plan is done, --runs auto has enough, a save fails
// (save_failure set) or an interrupt (each file saved, complete: false,
// then Interrupted rethrown). Every way out goes through the same
// clean-up: the backend let go (its loads stopped and their files gone),
// the knobs restored (knob_guard), the progress line cleared.
RunOutcome run_rounds(const RunConfig& config, RunPlan& plan, std::unique_ptr<RoundBackend> backend,
                      std::optional<KnobGuard>& knob_guard, const LabelFiles& files,
                      Progress& progress);

// run_suite's files: the resumed one (checked against this run's config
// record), or a new one per label in results/LABEL/, with `system` (the
// machine's fingerprint) and the time the run started; complete at the end.
LabelFiles run_label_files(const RunConfig& config, const std::string& started_at,
                           const nlohmann::json& system, Progress& progress);

// Runs everything in config. Writes the result file after every workload
// run (not before the first: no file ever holds 0 runs). On Ctrl-C, saves
// what finished (complete: false) and rethrows Interrupted; when a save
// fails, stops the suite and returns with save_failure set; loads and the
// workload are stopped and reaped on every path, and --vary's knobs restored.
RunOutcome run_suite(const RunConfig& config, Progress& progress);

}  // namespace contest
