// The order of the runs: blocks, rounds, and shuffled rounds that keep
// cacherun straight after no_load and are the same for the same seed.
#include <catch2/catch.hpp>
#include <set>

#include "contest/run/plan/run_order.h"
#include "contest/sys/errors.h"

using namespace contest;

namespace {

const std::vector<std::string_view> kLoads = {"no_load", "cacherun", "process_load", "io_load",
                                              "mem_load"};

// "no_load#1 cacherun#1 ..." for reading failures.
std::vector<std::string> named(const std::vector<PlannedRun>& plan) {
    std::vector<std::string> out;
    for (const auto& r : plan)
        out.push_back(std::string(kLoads[r.load]) + "#" + std::to_string(r.index));
    return out;
}

}  // namespace

TEST_CASE("blocks: every run of a load, then the next load", "[run_order]") {
    auto plan = named(plan_runs({"no_load", "cacherun"}, 2, RunOrder::blocks, 1));
    CHECK(plan == std::vector<std::string>{"no_load#1", "no_load#2", "cacherun#1", "cacherun#2"});
}

TEST_CASE("rounds: a run under every load in contest's order, round after round", "[run_order]") {
    auto plan = plan_runs(kLoads, 3, RunOrder::rounds, 1);
    REQUIRE(plan.size() == 15);
    for (std::size_t i = 0; i < plan.size(); ++i) {
        CHECK(plan[i].load == i % 5);
        CHECK(plan[i].index == i / 5 + 1);
    }
}

TEST_CASE("shuffled: each round has every load once, cacherun straight after no_load",
          "[run_order]") {
    const unsigned runs = 20;
    auto plan = plan_runs(kLoads, runs, RunOrder::shuffled, 42);
    REQUIRE(plan.size() == runs * kLoads.size());
    std::set<std::vector<std::size_t>> distinct_rounds;
    std::vector<int> first_in_round(kLoads.size(), 0);
    for (unsigned round = 0; round < runs; ++round) {
        std::vector<std::size_t> order;
        for (std::size_t k = 0; k < kLoads.size(); ++k) {
            const auto& step = plan[round * kLoads.size() + k];
            CHECK(step.index == round + 1);
            order.push_back(step.load);
            if (kLoads[step.load] == "cacherun") {
                REQUIRE(k > 0);
                CHECK(kLoads[plan[round * kLoads.size() + k - 1].load] == "no_load");
            }
        }
        ++first_in_round[order.front()];
        std::vector<std::size_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        CHECK(sorted == std::vector<std::size_t>{0, 1, 2, 3, 4});
        distinct_rounds.insert(order);
    }
    // 24 possible orders of the 4 units: 20 rounds repeat few of them, and
    // every unit leads some round (fixed seed: this cannot flake).
    CHECK(distinct_rounds.size() >= 8);
    CHECK(first_in_round[1] == 0);  // cacherun never leads
    for (std::size_t unit : {0, 2, 3, 4}) CHECK(first_in_round[unit] > 0);
}

TEST_CASE("shuffled: the same seed gives the same plan, another seed another", "[run_order]") {
    CHECK(plan_runs(kLoads, 5, RunOrder::shuffled, 7) ==
          plan_runs(kLoads, 5, RunOrder::shuffled, 7));
    CHECK(plan_runs(kLoads, 5, RunOrder::shuffled, 7) !=
          plan_runs(kLoads, 5, RunOrder::shuffled, 8));
}

TEST_CASE("shuffled without no_load: cacherun moves like any load", "[run_order]") {
    std::vector<std::string_view> loads = {"cacherun", "cpu_load"};
    auto plan = plan_runs(loads, 10, RunOrder::shuffled, 3);
    REQUIRE(plan.size() == 20);
    int cacherun_first = 0;
    for (std::size_t i = 0; i < plan.size(); i += 2) cacherun_first += plan[i].load == 0;
    CHECK(cacherun_first > 0);
    CHECK(cacherun_first < 10);
}

TEST_CASE("run order names", "[run_order]") {
    for (auto order : {RunOrder::shuffled, RunOrder::rounds, RunOrder::blocks})
        CHECK(parse_run_order(run_order_name(order)) == order);
    CHECK_THROWS_AS(parse_run_order("random"), UsageError);
}
