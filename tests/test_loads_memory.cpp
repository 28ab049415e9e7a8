// mem_load: it really holds and touches its target, and its cap keeps it
// clear of the OOM killer.
#include <catch2/catch.hpp>

#include "contest/sys/errors.h"
#include "loads/load_files.h"
#include "test_loads_support.h"

using namespace contest;
using contest::test::LoadUnderTest;

namespace {

nlohmann::json facts_for(std::uint64_t total, std::uint64_t available, std::uint64_t swap) {
    test::ScratchDir scratch("mem-cap");
    LoadEnv env;
    env.dir = scratch.path();
    env.mem_total = total;
    env.mem_available = available;
    env.swap_free = swap;
    auto load = find_load("mem_load")->make(env);
    load->prepare();
    return load->facts();
}

}  // namespace

TEST_CASE("mem_load aims at 110% of RAM, capped to what fits without the OOM killer", "[loads]") {
    SECTION("without swap it stays under RAM and says so") {
        nlohmann::json f = facts_for(8 * kGiB, 6 * kGiB, 0);
        CHECK(f["target_bytes"].get<std::uint64_t>() == 8 * kGiB + 8 * kGiB / 10);
        // MemAvailable less max(256 MiB, 5% of 8 GiB = 409.6 MiB).
        CHECK(f["cap_bytes"].get<std::uint64_t>() == 6 * kGiB - 8 * kGiB / 20);
        CHECK(f["bytes"].get<std::uint64_t>() <= f["cap_bytes"].get<std::uint64_t>());
        CHECK(f["bytes"].get<std::uint64_t>() < 8 * kGiB);
        CHECK(f["capped"].get<bool>());
        CHECK_THAT(f["note"].get<std::string>(), Catch::Contains("no swap"));
    }
    SECTION("with enough swap it reaches its 110% target") {
        nlohmann::json f = facts_for(4 * kGiB, 3 * kGiB, 8 * kGiB);
        CHECK(f["bytes"].get<std::uint64_t>() / kMiB == (4 * kGiB + 4 * kGiB / 10) / kMiB);
        CHECK_FALSE(f["capped"].get<bool>());
        CHECK_FALSE(f.contains("note"));
    }
    SECTION("the margin is at least 256 MiB") {
        nlohmann::json f = facts_for(1 * kGiB, 768 * kMiB, 0);
        CHECK(f["cap_bytes"].get<std::uint64_t>() == 512 * kMiB);
    }
    SECTION("too little memory is an environment error, not a crash") {
        CHECK_THROWS_AS(facts_for(1 * kGiB, 200 * kMiB, 0), EnvironmentError);
    }
}

TEST_CASE("mem_load's resident size reaches its target and its passes go on", "[loads][slow]") {
    LoadOptions options;
    options.set("load-size-mib", "256");
    LoadUnderTest mem("mem_load", options);
    CHECK(mem.facts()["bytes"] == 256 * kMiB);
    mem.start();
    // VmRSS in kB: every page of the buffer touched and resident.
    CHECK(test::eventually(
        [&] { return test::proc_field(mem.pid(), "status", "VmRSS") * 1024 >= 256 * kMiB; }));
    // Sweeps in order and in the permuted order, counted as whole passes.
    CHECK(test::eventually([&] { return mem.secondary() >= 4; }));
    CHECK(mem.units() >= 4 * 0.25);  // GiB touched: four passes over 256 MiB
    // The load volunteers to be the OOM killer's first choice.
    CHECK(test::proc_field(mem.pid(), "status", "VmRSS") > 0);
    std::ifstream adj("/proc/" + std::to_string(mem.pid()) + "/oom_score_adj");
    int score_adj = 0;
    adj >> score_adj;
    CHECK(score_adj == 1000);
    CHECK_FALSE(mem.failure());
}
