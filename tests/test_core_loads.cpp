// cpu_load and process_load really load the machine, and stop cleanly.
#include <catch2/catch.hpp>
#include <thread>

#include "contest/run/rounds/load_runner.h"
#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "loads/registry.h"
#include "test_helpers.h"

using namespace contest;

namespace {

std::unique_ptr<LoadSession> make(const std::string& name, const std::filesystem::path& dir,
                                  LoadOptions lo = {}) {
    lo.workdir = dir;
    const LoadInfo* info = find_load(name);
    REQUIRE(info != nullptr);
    return std::make_unique<LoadSession>(*info, lo);
}

// Runs a load for a while and returns how many processes it had and what
// it did over a 1.5 s window; checks that it left nothing behind.
struct Measured {
    std::size_t processes = 0;
    LoadWindow window;
};

Measured run_for_a_while(LoadSession& load) {
    Measured m;
    pid_t pgid;
    {
        load.start();
        pgid = load.pgid();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        m.processes = group_members(pgid).size();
        auto a = load.sample();
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        auto b = load.sample();
        CHECK_FALSE(load.failure());
        m.window = load.window(a, b);
        load.stop();
    }
    CHECK(group_members(pgid).empty());
    CHECK(test::leftover_processes().empty());
    return m;
}

}  // namespace

TEST_CASE("cpu_load keeps every CPU busy and counts its loops", "[loads][slow]") {
    test::ScratchDir dir("cpu");
    auto s = make("cpu_load", dir.path());
    Measured m = run_for_a_while(*s);
    CHECK(m.processes == online_cpus());
    CHECK(m.window.units > 0);
    // One spinner per CPU: near 100% x CPUs on an idle machine (bench/ has
    // that figure). Here only that it burns CPU rather than sleeping: the test
    // machine is shared, and ctest runs two tests at once.
    CHECK(m.window.cpu_pct > 10.0);
}

TEST_CASE("process_load passes records round a ring of 4 x CPUs processes", "[loads][slow]") {
    test::ScratchDir dir("ring");
    auto s = make("process_load", dir.path());
    Measured m = run_for_a_while(*s);
    CHECK(m.processes == 4 * online_cpus());
    // Each hop is a pipe read + write + wakeup: tens of thousands a second at least.
    CHECK(m.window.units > 1000);
    CHECK(m.window.cpu_pct > 0);  // mostly asleep in read(): any CPU at all
}

TEST_CASE("process_load takes its ring size and record count from the options", "[loads][slow]") {
    test::ScratchDir dir("ring3");
    LoadOptions lo;
    lo.set("ring-processes", "3");
    lo.set("ring-records", "1");
    lo.set("record-bytes", "100");
    auto s = make("process_load", dir.path(), lo);
    s->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(group_members(s->pgid()).size() == 3);
    CHECK(s->facts()["records"] == 1);
}

TEST_CASE("a load that gives up is reported with its reason", "[loads]") {
    struct Quitter : Load {
        void run(LoadCounters& c) override { c.fail("no disk today"); }
    } quitter;
    const LoadInfo& info = *find_load("cpu_load");
    RunningLoad running(info, quitter);
    std::optional<std::string> why;
    for (int i = 0; i < 200 && !why; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        why = running.failure();
    }
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("no disk today"));
}

TEST_CASE("resolve_loads expands sets and refuses unknown names", "[loads]") {
    LoadOptions lo;
    auto def = resolve_loads({"default"}, lo);
    REQUIRE(def.size() >= 4);
    CHECK(def[0]->name == "no_load");
    CHECK(def[1]->name == "cacherun");
    CHECK_THROWS_AS(resolve_loads({"no_such_load"}, lo), UsageError);
    auto two = resolve_loads({"cpu_load", "no_load", "cpu_load"}, lo);
    REQUIRE(two.size() == 2);
    CHECK(two[0]->name == "cpu_load");
}
