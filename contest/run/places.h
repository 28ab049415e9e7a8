#pragma once
// The places a round of `contest run` can run, one table as the loads,
// workloads, probes and exporters have theirs. Each place is one file
// (place_host.cpp, place_guests.cpp, place_boot.cpp) holding its entry:
// the option that chooses it, what it does not go with, its labels and
// their checks, the order of its turns and the backend that takes them
// (round_backend.h). The run's mode (RunConfig::place) is chosen from this
// table once; the plan, the loop, the CLI's checks and --help read it.
//
// Adding a place: its file with its entry; in places.cpp the entry declared
// and listed; its value in run_place.h; its own options, if any, in
// cmd_run.cpp's table, each with Needs{{"its option"}}.
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "contest/run/knobs.h"
#include "contest/run/label_run.h"
#include "contest/run/round_backend.h"
#include "contest/run/run_config.h"
#include "contest/run/run_order.h"
#include "contest/run/run_place.h"
#include "contest/sys/progress.h"

namespace contest {

struct RunPlan;

// What a place does not go with: an option, or an option with the value
// named ("runs" "auto"), and why.
struct PlaceExclusion {
    std::string_view option;
    std::string_view value;  // "": the option given at all
    std::string_view why;    // after "--X does not go with --PLACE"; may be ""
};

// What every place of kernels refuses alike: a round boots each kernel
// once, and each kernel's label is given with it.
inline constexpr PlaceExclusion kKernelsTakeRounds{
    "order", "blocks", "a round boots each kernel once (--order shuffled or rounds)"};
inline constexpr PlaceExclusion kKernelsNameLabels{"label", "",
                                                   "each kernel's label is given there"};

struct PlaceInfo {
    RunPlace place;
    std::string_view option;      // the option that chooses it, twice or more ("" for the host)
    std::string_view value_name;  // of LABEL=VALUE: IMAGE, KERNEL
    std::vector<PlaceExclusion> excludes;
    // Its turns are taken by another contest (delegated_turn.h), which runs
    // the config of the options that reach it (RunConfig::delegated, made
    // once at the start).
    bool delegates_turns = false;
    // The labels, each checked as -k's; for a place of kernels, one a
    // kernel, two alike refused.
    std::vector<LabelRun> (*labels)(const RunConfig& config, const RunPlan& plan);
    // Every run, in the order its turns are taken (run_order.h).
    std::vector<PlannedRun> (*runs)(const std::vector<std::string_view>& loads, unsigned runs,
                                    RunOrder order, std::uint64_t seed, std::size_t labels);
    // The backend its rounds are taken with (a --boot step takes its one
    // turn with it). knob_guard, when set, holds --vary's knobs.
    std::unique_ptr<RoundBackend> (*backend)(const RunConfig& config, RunPlan& plan,
                                             std::optional<KnobGuard>& knob_guard,
                                             Progress& progress);
};

// Every place, the host first.
const std::vector<const PlaceInfo*>& place_table();
const PlaceInfo& place_info(RunPlace place);

// The place the options choose: the one whose option was given (given says
// whether an option was), the host when none was. UsageError when two were.
RunPlace choose_place(const std::function<bool(std::string_view option)>& given);

// UsageError, one line, when the config has what its place does not go
// with (among the exclusions a RunConfig shows: --vary, --resume, --runs
// auto, --order blocks), or fewer labels than two for a place of kernels.
void check_place(const RunConfig& config);

// "--vary does not go with --kernel: why" (why may be empty).
std::string exclusion_text(const PlaceInfo& place, const PlaceExclusion& exclusion);

// What --help and the manual say of the place's option: "not with
// --order blocks, --vary, ..." (its exclusions in the table's order).
std::string exclusions_help(const PlaceInfo& place);

// The labels of a place of kernels (config.kernels), each checked as -k's.
std::vector<LabelRun> kernel_labels(const RunConfig& config, const RunPlan& plan);

// The host's backend (place_host.cpp), which a --boot step's turn takes too.
std::unique_ptr<RoundBackend> host_round_backend(const RunConfig& config, RunPlan& plan,
                                                 std::optional<KnobGuard>& knob_guard,
                                                 Progress& progress);

}  // namespace contest
