// The table of measures (contest/analysis/measures.h): every measure a run
// records is typed there, and each known one is named after where it is read.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/analysis/measures.h"
#include "contest/result/result_file.h"

namespace fs = std::filesystem;
using namespace contest;

namespace {

// The name run_measures gives what `m` reads ("" for a family or a field of
// the run record, whose names are their own).
std::string name_from_source(const Measure& m) {
    std::string key(m.key);
    std::replace(key.begin(), key.end(), '-', '_');
    switch (m.source) {
        case MeasureSource::perf_event:
        case MeasureSource::perf_derived:
            return "perf_" + key;
        case MeasureSource::psi:
            return "psi_" + key.replace(key.find('/'), 1, "_");
        case MeasureSource::vmstat:
            return "vmstat_" + key + "_per_s";
        case MeasureSource::disk:
            return "disk_" + key + "_per_s";
        default:
            return "";
    }
}

}  // namespace

TEST_CASE("measures: a known measure is named after the key it is read at", "[measures]") {
    for (const Measure& m : measures()) {
        INFO(m.name);
        if (m.name.find('<') != std::string_view::npos || m.key.empty()) continue;
        CHECK(name_from_source(m) == m.name);
        CHECK(find_measure(m.name) == &m);
    }
}

TEST_CASE("measures: families type the counters, events and probes no row names", "[measures]") {
    const Measure* vm = find_measure("vmstat_nr_written_per_s");
    REQUIRE(vm);
    CHECK(vm->kind == MeasureKind::rate);
    CHECK(vm->meaning.empty());
    const Measure* p99 = find_measure("latency_audio_p99_us");
    REQUIRE(p99);
    CHECK(p99->kind == MeasureKind::time);
    CHECK(p99->meaning == "the probe's 99th percentile latency");
    // A family member the table knows by name has its own meaning.
    CHECK(find_measure("vmstat_oom_kill_per_s")->meaning == "the rate of OOM kills");
    CHECK(find_measure("perf_") == nullptr);
    CHECK(find_measure("wall_s") == nullptr);
    CHECK_THROWS_AS(measure_named("vmstat_nr_written_per_s"), std::logic_error);
}

TEST_CASE("measures: every measure the observe fixtures recorded is in the table", "[measures]") {
    std::vector<std::string> bad;
    const auto files =
        read_result_paths({fs::path(CONTEST_TEST_DATA) / "observe" / "results"}, bad);
    REQUIRE(bad.empty());
    REQUIRE_FALSE(files.empty());
    std::size_t seen = 0;
    for (const auto& f : files)
        for (const auto& run : f.runs)
            for (const auto& [name, value] : run_measures(run)) {
                INFO(name);
                CHECK(find_measure(name) != nullptr);
                ++seen;
            }
    CHECK(seen > 0);
}

TEST_CASE("measures: a reading says why a run has no figure", "[measures]") {
    RunRecord r;
    r.perf = {{"events",
               {{"cycles", {{"counted", false}, {"reason", "not supported"}}},
                {"context-switches", {{"counted", true}, {"value", 42.0}}}}},
              {"ipc", {{"value", nullptr}, {"reason", "needs instructions and cycles counted"}}}};
    r.timeline = {{"totals", {{"psi", {{"available", false}, {"reason", "no /proc/pressure"}}}}}};
    CHECK(measure_reading(r, measure_named("perf_context_switches")) == 42.0);
    CHECK(measure_reading(r, measure_named("perf_ipc")) == "cycles not supported");
    CHECK(measure_reading(r, measure_named("perf_task_clock")).is_null());
    CHECK(measure_reading(r, measure_named("psi_io_some_pct")) == "no /proc/pressure");
    CHECK(vmstat_reading(r, std::vector<std::string>{"pswpin"}).is_null());
    CHECK_THROWS_AS(measure_reading(r, measure_named("user_s")), std::logic_error);
}
