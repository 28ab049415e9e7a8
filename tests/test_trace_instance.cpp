// contest's own tracing instance (contest/observe/trace_instance.h) on a fake
// folder tree and on the real tracefs. The real case needs root and tracefs
// mounted; without them it is skipped, not passed.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "contest/observe/trace_events.h"
#include "contest/observe/trace_instance.h"
#include "contest/sys/text_file.h"
#include "test_helpers.h"
#include "trace_test_support.h"

using namespace contest;
using namespace contest::test;
namespace fs = std::filesystem;

TEST_CASE("an instance says why when there is no tracefs, and leaves nothing", "[trace]") {
    test::ScratchDir dir("trace-fake");
    std::string why;
    SECTION("no tracefs at the root") {
        CHECK_FALSE(TraceInstance::make(options_at(dir.path().string()), why));
        CHECK_THAT(why, Catch::Contains("no tracefs at " + dir.path().string()));
    }
    SECTION("a folder tree that is not tracefs: its settings are missing") {
        fs::create_directories(dir / "instances");
        CHECK_FALSE(TraceInstance::make(options_at(dir.path().string()), why));
        CHECK_THAT(why, Catch::Contains("cannot set up the tracing instance"));
        CHECK_FALSE(fs::exists(instance_path(dir.path().string())));
    }
    SECTION("stale instances of gone contests go, the others stay") {
        fs::create_directories(dir / "instances");
        const std::string root = dir.path().string();
        const std::string own = instance_path(root);  // this test binary: a live contest
        const std::string ns = own.substr(own.rfind('-') + 1);
        const std::string gone = root + "/instances/contest-999999999-1-" + ns;  // no such pid
        fs::create_directory(gone);
        fs::create_directory(root + "/instances/contest-1");  // an older name: not provable
        fs::create_directory(root + "/instances/not-contest");
        fs::create_directory(own);
        const auto removed = remove_stale_instances(root);
        REQUIRE(removed.size() == 1);
        CHECK_FALSE(fs::exists(gone));
        CHECK(fs::exists(root + "/instances/contest-1"));
        CHECK(fs::exists(root + "/instances/not-contest"));
        CHECK(fs::exists(own));
    }
}

TEST_CASE("cpu masks are tracing_cpumask's hex words", "[trace]") {
    CHECK(cpu_mask_text({0}) == "1");
    CHECK(cpu_mask_text({1}) == "2");
    CHECK(cpu_mask_text({0, 1, 3}) == "b");
    CHECK(cpu_mask_text({32}) == "1,00000000");
    CHECK(cpu_mask_text({}) == "0");
}

TEST_CASE("a real instance traces one CPU and is gone after", "[trace]") {
    const std::string root = kTracefsRoot;
    std::string why;
    const int cpu = traced_cpu();
    const std::string head_before = global_trace_head(root);
    {
        auto trace = TraceInstance::make({.cpus = {cpu}, .buffer_size_kb = 1024}, why);
        if (!trace) {
            WARN("tracefs not usable: " << why);
            CONTEST_SKIP("tracefs not usable: " << why);
        }
        CHECK(fs::is_directory(instance_path(root)));
        // Rounded up to the ring buffer's pages.
        CHECK(trace->buffer_size_kb() >= 1024);
        CHECK(trace->buffer_size_kb() < 1024 + 64);
        CHECK(trace->cpumask() == cpu_mask_text({cpu}));
        CHECK(read_first_line(trace->path() + "/trace_clock").value_or("").find("[mono]") !=
              std::string::npos);
        CHECK(read_first_line(trace->path() + "/options/overwrite") == "1");
        CHECK(read_first_line(trace->path() + "/events/sched/sched_switch/enable") == "1");
        CHECK(trace->missing_events().empty());
        REQUIRE(trace->start());
        std::thread([cpu] {
            pin_to(cpu);
            for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }).join();
        REQUIRE(trace->stop());
        const TraceText text = trace->read();
        const ParsedTrace parsed = parse_trace(text.text);
        CHECK(parsed.skipped_lines == 0);
        CHECK(!parsed.events.empty());
        for (const auto& e : parsed.events) CHECK(e.cpu == cpu);
        CHECK_FALSE(text.truncated);
    }
    CHECK_FALSE(fs::exists(instance_path(root)));
    CHECK(global_trace_head(root) == head_before);

    // One left by a killed contest (a pid no process has) goes; one named
    // otherwise stays.
    const std::string own = instance_path(root);
    const std::string stale =
        root + "/instances/contest-999999999-1-" + own.substr(own.rfind('-') + 1);
    const std::string other = root + "/instances/not-contest";
    struct RemovedAtEnd {
        std::vector<std::string> paths;
        ~RemovedAtEnd() {
            for (const auto& p : paths) ::rmdir(p.c_str());
        }
    } cleanup{{stale, other}};
    REQUIRE(::mkdir(stale.c_str(), 0700) == 0);
    REQUIRE(::mkdir(other.c_str(), 0700) == 0);
    const auto removed = remove_stale_instances(root);
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(other));
    CHECK(removed.size() == 1);
}
