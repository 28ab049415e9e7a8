#include "contest/run/plan/run_order.h"

#include <random>

#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"

namespace contest {

RunOrder parse_run_order(const std::string& name) {
    if (auto order = value_in(kRunOrderNames, name)) return *order;
    throw UsageError("--order '" + name + "': expected " + names_in(kRunOrderNames, ", ", " or "));
}

const char* run_order_name(RunOrder order) {
    return name_in(kRunOrderNames, order).data();
}

namespace {

// The loads as units that move together: no_load with the cacherun that
// follows it, every other load alone.
std::vector<std::vector<std::size_t>> units_of(const std::vector<std::string_view>& loads) {
    std::vector<std::vector<std::size_t>> units;
    std::size_t no_load = loads.size(), cacherun = loads.size();
    for (std::size_t i = 0; i < loads.size(); ++i) {
        if (loads[i] == "no_load") no_load = i;
        if (loads[i] == "cacherun") cacherun = i;
    }
    for (std::size_t i = 0; i < loads.size(); ++i) {
        if (i == cacherun && no_load < loads.size()) continue;  // goes with no_load
        units.push_back({i});
        if (i == no_load && cacherun < loads.size()) units.back().push_back(cacherun);
    }
    return units;
}

}  // namespace

std::vector<PlannedRun> plan_runs(const std::vector<std::string_view>& loads, unsigned runs,
                                  RunOrder order, std::uint64_t seed, std::size_t labels) {
    std::vector<PlannedRun> plan;
    if (order == RunOrder::blocks && labels > 1)
        throw UsageError("--vary needs runs in rounds (--order shuffled or rounds)");
    if (order == RunOrder::blocks) {
        // cacherun's first run follows no_load's last, the others its own.
        for (std::size_t load = 0; load < loads.size(); ++load)
            for (unsigned i = 1; i <= runs; ++i) plan.push_back({load, i});
        return plan;
    }
    // A unit is a label and the loads that move together under it.
    std::vector<std::pair<std::size_t, std::vector<std::size_t>>> units;
    for (std::size_t v = 0; v < labels; ++v)
        for (auto& unit : units_of(loads)) units.emplace_back(v, std::move(unit));
    std::mt19937_64 random(seed);
    for (unsigned i = 1; i <= runs; ++i) {
        if (order == RunOrder::shuffled) {
            // Fisher-Yates; the modulo's bias is below 1e-17 for a few loads.
            for (std::size_t k = units.size(); k > 1; --k)
                std::swap(units[k - 1], units[random() % k]);
        }
        for (const auto& [label, unit] : units)
            for (std::size_t load : unit) plan.push_back({load, i, label});
    }
    return plan;
}

std::uint64_t turn_seed(std::uint64_t seed, unsigned round, std::size_t kernel) {
    // splitmix64 of the three: distinct rounds and kernels get unrelated seeds.
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (1 + round * 1024ULL + kernel);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::vector<PlannedRun> plan_kernel_runs(const std::vector<std::string_view>& loads, unsigned runs,
                                         RunOrder order, std::uint64_t seed, std::size_t kernels) {
    if (order == RunOrder::blocks)
        throw UsageError("kernels need runs in rounds (--order shuffled or rounds)");
    std::vector<std::size_t> kernel_order(kernels);
    for (std::size_t v = 0; v < kernels; ++v) kernel_order[v] = v;
    std::mt19937_64 random(seed);
    std::vector<PlannedRun> plan;
    for (unsigned i = 1; i <= runs; ++i) {
        if (order == RunOrder::shuffled)
            for (std::size_t k = kernel_order.size(); k > 1; --k)
                std::swap(kernel_order[k - 1], kernel_order[random() % k]);
        for (std::size_t v : kernel_order)
            for (const auto& step : plan_runs(loads, 1, order, turn_seed(seed, i, v)))
                plan.push_back({step.load, i, v});
    }
    return plan;
}

}  // namespace contest
