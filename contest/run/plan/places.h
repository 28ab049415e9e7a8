#pragma once
// The places a round of `contest run` can run, one table as the loads,
// workloads, probes and exporters have theirs. Each place is one file
// (place_host.cpp, place_guests.cpp, place_boot.cpp) holding its entry:
// its name in a journal, the option that chooses it and its own options,
// what it does not go with, its labels and their checks, the order of its
// turns, the backend that takes them (round_backend.h) and its life over
// a run's journal (place_life.h: start, advance, status, abort). The run's
// mode (RunConfig::place) is chosen from this table once; the plan, the
// loop, the CLI's checks, --help and what `contest run` does read it.
//
// Adding a place: its file with its entry (its own options there, in its
// rows, each with Needs{{"its option"}}, and its life made with them, and
// of a run's journal: journal_life, which contest run --journal and a
// bisection's batch start it by, drive/ naming no place); in
// places.cpp the entry declared and listed; its value in run_place.h.
// `contest run` gathers every place's rows from the table and asks the
// life of the place its words chose (cmd_run.cpp names no place).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contest/run/plan/knobs.h"
#include "contest/run/plan/place_life.h"
#include "contest/run/plan/planned_round.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_order.h"
#include "contest/run/plan/run_place.h"
#include "contest/run/record/label_run.h"
#include "contest/sys/option_table.h"
#include "contest/sys/progress.h"

namespace contest {

class RoundBackend;  // rounds/round_backend.h: a place's backend is made above the plan

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

// Whether an option was given (on the command line or in a --config file).
using OptionGiven = std::function<bool(std::string_view option)>;

// What a place's options are finished with, once the words are parsed.
struct ParsedWords {
    OptionGiven given;
    // The config each turn's contest runs where another contest takes the
    // turns (delegated_turn.h: a --kernel guest's): the options that reach
    // it, parsed as that contest would parse them, now (no word is parsed
    // after the start).
    std::function<RunConfig()> delegated_config;
};

// A place's own options: its rows of `contest run`'s table, in --help's
// order, the option that chooses it first (place_option_row), bound to the
// config's fields or to values the place keeps; once they are parsed,
// finish puts the latter into the config (the place chosen: config.place),
// and the life made with them reads the rest. Every place's finish is
// called, chosen or not: an option may serve more than one place
// (--boot-append, --build-config).
struct PlaceOptions {
    std::vector<TableOption> rows;  // none for the host
    std::function<void(const ParsedWords& words, RunConfig& config)> finish;
    // The place's life, bound to its options' values (place_life.h).
    std::shared_ptr<PlaceLife> life;
};

struct PlaceInfo {
    RunPlace place;
    std::string_view name;        // in a run's journal: host, guests, boot
    std::string_view option;      // the option that chooses it, twice or more ("" for the host)
    std::string_view value_name;  // of LABEL=VALUE: IMAGE, KERNEL
    std::vector<PlaceExclusion> excludes;
    // Its own options and its life (the host's: no option, the life of a
    // run taken here): `contest run`'s table has every place's rows, in
    // the table's order.
    PlaceOptions (*options)(RunConfig& config) = nullptr;
    // The labels, each checked as -k's; for a place of kernels, one a
    // kernel, two alike refused.
    std::vector<LabelRun> (*labels)(const RunConfig& config, const RunPlan& plan);
    // Every run, in the order its turns are taken (run_order.h).
    std::vector<PlannedRun> (*runs)(const std::vector<std::string_view>& loads, unsigned runs,
                                    RunOrder order, std::uint64_t seed, std::size_t labels);
    // The backend its rounds are taken with (a --boot step takes its one
    // turn with it); null for a place whose life takes no round in this
    // contest's loop. knob_guard, when set, holds --vary's knobs.
    std::unique_ptr<RoundBackend> (*backend)(const RunConfig& config, RunPlan& plan,
                                             std::optional<KnobGuard>& knob_guard,
                                             Progress& progress);
    // Its life made of a run's journal (its config this place's), of what
    // the place keeps there beside the config (PlaceLife::keep_own), no
    // option parsed: a UsageError naming what the journal lacks. Null for a
    // place whose runs are not started from a journal alone (journal_life.h).
    std::shared_ptr<PlaceLife> (*journal_life)(const RunJournal& journal) = nullptr;
};

// Every place, the host first.
const std::vector<const PlaceInfo*>& place_table();
const PlaceInfo& place_info(RunPlace place);

// The word that gives `kernel` to a run of a place of kernels, as a user
// types it: --kernel=LABEL=IMAGE, --boot=LABEL=KERNEL.
std::string kernel_word(RunPlace place, const KernelSpec& kernel);

// The place a journal names (PlaceInfo::name); nullopt for no place's.
std::optional<RunPlace> place_named(std::string_view name);

// The life of `place` among every place's options, made in the table's
// order (one each).
PlaceLife& life_of(const std::vector<PlaceOptions>& options, RunPlace place);

// The life whose place's options asked a verb (PlaceLife::asked), with the
// verb; nullopt when none did.
std::optional<std::pair<PlaceLife*, LifeAsked>> asked_life(
    const std::vector<PlaceOptions>& options);

// A place added at the table's end while it lives (a place of a test: its
// value beyond run_place.h's, its entry the test's own), as a place's file
// adds its entry to places.cpp's list.
class ExtraPlace {
  public:
    explicit ExtraPlace(const PlaceInfo& place);
    ~ExtraPlace();
    ExtraPlace(const ExtraPlace&) = delete;
    ExtraPlace& operator=(const ExtraPlace&) = delete;

  private:
    const PlaceInfo* place_;
};

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

// The row of the place's option (--kernel LABEL=IMAGE, given once or more),
// its words bound to *words and each checked as LABEL=VALUE (value_name);
// its help, then what the place does not go with (exclusions_help).
TableOption place_option_row(const PlaceInfo& place, std::vector<std::string>* words,
                             const std::string& help);

// UsageError "--OPTION 'SPEC': expected LABEL=VALUE_NAME" for the first of
// specs that is no LABEL=VALUE (an empty VALUE only when it may be).
void check_label_spec(const std::string& option, const std::string& value_name,
                      const std::vector<std::string>& specs, bool value_may_be_empty);

// LABEL=VALUE words (as checked) split at their first '='.
std::vector<KernelSpec> label_specs(const std::vector<std::string>& specs);

// The labels of a place of kernels (config.kernels), each checked as -k's.
std::vector<LabelRun> kernel_labels(const RunConfig& config, const RunPlan& plan);

// The host's backend (place_host.cpp), which a --boot step's turn takes too.
std::unique_ptr<RoundBackend> host_round_backend(const RunConfig& config, RunPlan& plan,
                                                 std::optional<KnobGuard>& knob_guard,
                                                 Progress& progress);

}  // namespace contest
