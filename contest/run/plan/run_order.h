#pragma once
// In which order `contest run` takes its runs.
//
// shuffled (the default): in rounds, each round in a fresh random order.
//   Rounds spread a machine's drift (a VM host's other tenants, heat) over
//   every load alike; shuffling each round does the same for carry-over, the
//   after-effects of one run on the next (on the development VM a run right
//   after mem_load ran slower while the host re-backed the memory mem_load
//   had freed), which a fixed order would put on the same load every round.
// rounds: in rounds, every round in contest's order.
// blocks: all runs under one load, then the next load, as the 2002 contest.
//
// In rounds, cacherun runs straight after no_load when both are asked for,
// as in contest: its caches are the ones no_load's compile left.
//
// With --vary, every round runs every load under every value (label):
// shuffled mixes the (label, load) pairs of a round; rounds takes one
// label's loads after the other's, in contest's order. Blocks would put a
// setting's runs hours apart from the other's, so --vary needs rounds.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "contest/sys/enum_names.h"

namespace contest {

enum class RunOrder { shuffled, rounds, blocks };
inline constexpr std::array<EnumName<RunOrder>, 3> kRunOrderNames{{
    {RunOrder::shuffled, "shuffled"},
    {RunOrder::rounds, "rounds"},
    {RunOrder::blocks, "blocks"},
}};
template <>
struct JsonWords<RunOrder> {
    static constexpr const auto& names = kRunOrderNames;
    static constexpr const char* what = "run order";
};

// "shuffled", "rounds", "blocks"; anything else is a UsageError.
RunOrder parse_run_order(const std::string& name);
const char* run_order_name(RunOrder order);

struct PlannedRun {
    std::size_t load;       // index into the loads given to plan_runs
    unsigned index;         // 1-based run number under that load
    std::size_t label = 0;  // which label (RunPlan::labels): --vary's combination, or kernel
    bool operator==(const PlannedRun&) const = default;
};

// Every run, in the order to take them. The same seed gives the same plan
// with every standard library (the shuffle is our own, on mt19937_64).
std::vector<PlannedRun> plan_runs(const std::vector<std::string_view>& loads, unsigned runs,
                                  RunOrder order, std::uint64_t seed, std::size_t labels = 1);

// --kernel and --boot: every round boots each kernel (label) once, so a round's
// runs under one kernel are taken together. shuffled: the kernels' order
// is shuffled every round, and so are each guest's loads, with
// turn_seed(seed, round, kernel); rounds: the kernels and the loads in
// their order. The guest is given its loads in the plan's order and runs
// them so (--order rounds keeps the order given): the plan is the order
// the guests take.
std::vector<PlannedRun> plan_kernel_runs(const std::vector<std::string_view>& loads, unsigned runs,
                                         RunOrder order, std::uint64_t seed, std::size_t kernels);

// The seed a turn's loads are shuffled with, for its round and kernel; a
// delegated turn's contest (a guest's) gets it as its --seed.
std::uint64_t turn_seed(std::uint64_t seed, unsigned round, std::size_t kernel);

}  // namespace contest
