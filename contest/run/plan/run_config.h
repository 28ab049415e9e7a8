#pragma once
// What `contest run` was asked to do, as its options gave it: the label,
// the runs and their order, the loads and the workload, what is observed
// beside them, and where the labels' runs run (this host with its --vary
// knobs, --kernel's guests, --boot's reboots). Read by every step that
// plans, takes or records a run, so it stands below them all.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/kbuild/build_cache.h"
#include "contest/latency/probe_options.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/auto_runs.h"
#include "contest/run/plan/knobs.h"
#include "contest/run/plan/run_order.h"
#include "contest/run/plan/run_place.h"
#include "contest/run/record/sink_specs.h"
#include "contest/vm/guest.h"
#include "contest/vm/kernel_image.h"
#include "loads/load.h"
#include "workloads/workload.h"

namespace contest {

// The most runs a load `contest run` takes (--runs, --max-runs), and a
// run's journal holds: far beyond any real use, small enough that a slip
// of the keyboard, or a journal edited by hand, cannot ask for a day of runs.
inline constexpr unsigned kMaxRuns = 1000;

// Every field is kept in a run's journal (run_journal_text.cpp names each
// once): a field added here goes there too, or a --boot step loses it.
struct RunConfig {
    std::string label;
    unsigned runs = 3;
    std::vector<std::string> loads{"default"};
    WorkloadOptions workload;
    LoadOptions load;
    std::filesystem::path results_dir = "results";
    // Where every saved file also goes (sink_specs.h): the results database
    // (--db as given, "": history.sqlite in results_dir); none under
    // --no-history.
    std::vector<SinkSpec> sinks = default_sinks();
    double warmup_s = 3.0;    // a load's time to get going before the workload starts
    bool drop_caches = true;  // before every run but cacherun's, where permitted
    double settle_s = 0;      // before every run, at most this long for the machine to settle
    RunOrder order = RunOrder::shuffled;
    std::optional<std::uint64_t> seed;  // of the shuffle; unset: a random one, recorded
    std::optional<AutoRuns> auto_runs;  // --runs auto (runs is then its max_runs)
    // A caller's own rule for when the rounds have told enough (contest
    // bisect's step: its sequential test), asked after every round with the
    // labels' files as they stand; "" to go on, else why they stop (each
    // file's stopped_because). Not recorded: the caller records its own.
    std::function<std::string(unsigned round, const std::vector<ResultFile>& files)> stop_rule;
    // Why a kernel is slower: perf counters on the workload's
    // tree (--perf), and the machine sampled over its window (0: off).
    bool perf = false;
    double timeline_hz = 10;
    // --latency: the probes to run during every workload run (empty: none),
    // and the bucket width of their distribution (--latency-dist).
    std::vector<latency::ProbeOptions> latency_probes;
    std::int64_t latency_dist_ns = 1000;
    std::optional<double> timeout_s;  // --timeout: a workload run is stopped after this
    double timeout_s_value = 0;       // as parsed, before it is known to be given
    // --resume: the interrupted run's result files, one per label in the
    // plan's order, as its journal names them (run_driver.h).
    std::vector<std::filesystem::path> resume;
    std::string containment;                    // how the runs' processes are held (RunContainment)
    std::vector<VarySpec> vary;                 // --vary: knobs set round by round (docs/vary.md)
    std::string vary_label = "{label},{vary}";  // --vary-label: each combination's label
    // The words after `contest` as given, recorded so a reader can repeat the run.
    std::vector<std::string> command_line;
    // Where the rounds run (places.h): chosen once, from the options.
    RunPlace place = RunPlace::host;
    // The places' own settings, made of their options (each place's rows,
    // places.h), by place: first the places of kernels' (--kernel's and
    // --boot's alike), then the guests'. --boot's own (BootRunOptions,
    // boot/boot_options.h) sit beside the config in its journal.
    // --kernel or --boot (as `place` says): each label's kernel, booted
    // every round in a QEMU guest (docs/kernels.md) or on this machine, one
    // reboot a turn (docs/boot.md).
    std::vector<KernelSpec> kernels;
    // --build-config: the .config every kernel given as TREE@REF is built
    // from ("": the place's default, contest/kbuild/kernel_config.h).
    std::filesystem::path build_config;
    // --build-cache-max: the bound of the workdir's cache of built kernels,
    // in GiB.
    double build_cache_max_gib = kbuild::kDefaultCacheMaxGiB;
    // --boot-append LABEL=ARGS: a label's own kernel parameters, for --boot
    // and --kernel alike (KernelSpec's image holds the ARGS).
    std::vector<KernelSpec> boot_appends;
    // --kernel: the guests' machine, and the config each guest's contest
    // runs (the options that reach a delegated place, the workload's, the
    // loads' and the probes', as given; made once, at the start), to which
    // each turn adds its label, loads, seed and places (delegated_turn.h).
    VmOptions vm;
    std::shared_ptr<const RunConfig> delegated;
    // A duet guest's contest (start_barrier.h): the folder where each run
    // waits, before its load starts, until every guest of the round is
    // ready, so that their runs start together. Empty: no wait.
    std::filesystem::path start_barrier;
    // The parameters given to `label` by --boot-append ("" when none).
    std::string append_of(const std::string& label) const;
};

}  // namespace contest
