// Result files: round trip, validation with the file and field named, atomic writes.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "contest/result/result_file.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

using namespace contest;

namespace {
ResultFile sample_result() {
    ResultFile f;
    f.label = "6.1.0-hz1000";
    f.contest_version = "0.1.0";
    f.started_at = "2026-11-30T00:00:00Z";
    f.system = {{"kernel_release", "6.1.0"}};
    f.config = {{"runs", 1}};
    RunRecord r;
    r.load = "cpu_load";
    r.index = 1;
    r.wall_s = 12.5;
    r.user_s = 20;
    r.sys_s = 2;
    r.cpu_pct = 176;
    r.load_units = 1234.5;
    r.load_unit = "M loops";
    r.load_cpu_pct = 45.5;
    r.caches = "dropped";
    r.others_cpu_pct = 3.25;
    r.steal_pct = 0.5;
    f.runs.push_back(r);
    return f;
}
}  // namespace

TEST_CASE("a result file survives a round trip with every run field", "[result]") {
    test::ScratchDir dir("result");
    auto path = dir / "r.json";
    write_file_atomically(path, to_json(sample_result()).dump(2));
    ResultFile back = read_result_file(path);
    CHECK(back.label == "6.1.0-hz1000");
    REQUIRE(back.runs.size() == 1);
    CHECK(back.runs[0].load == "cpu_load");
    CHECK(back.runs[0].wall_s == Approx(12.5));
    CHECK(back.runs[0].load_units == Approx(1234.5));
    CHECK(back.runs[0].load_unit == "M loops");
    CHECK(back.runs[0].caches == "dropped");
    CHECK(back.runs[0].others_cpu_pct == 3.25);
    CHECK(back.runs[0].steal_pct == 0.5);
    auto j = nlohmann::json::parse(test::slurp(path));
    CHECK(j["schema_version"] == 1);
    CHECK(j["complete"] == false);
    for (const char* k : {"load", "index", "status", "wall_s", "user_s", "sys_s", "cpu_pct",
                          "load_units", "load_unit", "load_cpu_pct", "max_rss_kib", "caches"})
        CHECK(j["runs"][0].contains(k));
    // No temporary file is left next to it.
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
    CHECK(files == 1);
}

TEST_CASE("a run without the machine's CPU figures reads them as unmeasured", "[result]") {
    auto j = to_json(sample_result());
    j["runs"][0].erase("others_cpu_pct");
    j["runs"][0].erase("steal_pct");
    ResultFile back = result_from_json(j, "old.json");
    CHECK_FALSE(back.runs[0].others_cpu_pct);
    CHECK_FALSE(back.runs[0].steal_pct);
    CHECK_FALSE(to_json(back.runs[0]).contains("others_cpu_pct"));
    j["runs"][0]["steal_pct"] = nullptr;  // null is unmeasured too, not 0
    CHECK_FALSE(result_from_json(j, "null.json").runs[0].steal_pct);
}

TEST_CASE("a malformed result file is named with the line or field at fault", "[result]") {
    test::ScratchDir dir("badresult");
    auto broken = dir / "broken.json";
    std::ofstream(broken) << "{\n  \"schema_version\": 1,\n  \"label\": \n";
    try {
        read_result_file(broken);
        FAIL("no error");
    } catch (const UsageError& e) {
        CHECK_THAT(e.what(), Catch::Contains("broken.json:"));
    }
    auto j = to_json(sample_result());
    j["runs"][0].erase("wall_s");
    auto missing = dir / "missing.json";
    std::ofstream(missing) << j.dump();
    try {
        read_result_file(missing);
        FAIL("no error");
    } catch (const UsageError& e) {
        CHECK_THAT(e.what(), Catch::Contains("runs[0]") && Catch::Contains("wall_s"));
    }
    j = to_json(sample_result());
    j["schema_version"] = 99;
    std::ofstream(dir / "future.json") << j.dump();
    CHECK_THROWS_WITH(read_result_file(dir / "future.json"), Catch::Contains("schema_version 99"));
}

TEST_CASE("reading a folder skips bad files and names them", "[result]") {
    test::ScratchDir dir("folder");
    std::filesystem::create_directories(dir / "a");
    write_file_atomically(dir / "a" / "good.json", to_json(sample_result()).dump());
    std::ofstream(dir / "a" / "bad.json") << "not json";
    std::vector<std::string> bad;
    auto files = read_result_paths({dir.path()}, bad);
    REQUIRE(files.size() == 1);
    CHECK(files[0].label == "6.1.0-hz1000");
    REQUIRE(bad.size() == 1);
    CHECK_THAT(bad[0], Catch::Contains("bad.json"));
}

TEST_CASE("every run status is written and read as its word, an unknown word is named",
          "[result]") {
    for (const auto& s : kRunStatusNames) {
        ResultFile f = sample_result();
        f.runs[0].status = s.value;
        auto j = to_json(f);
        CHECK(j["runs"][0]["status"] == std::string(s.name));
        CHECK(result_from_json(j, "s.json").runs[0].status == s.value);
    }
    auto j = to_json(sample_result());
    j["runs"][0]["status"] = "crashed";
    CHECK_THROWS_WITH(result_from_json(j, "odd.json"), Catch::Contains("odd.json: runs[0]") &&
                                                           Catch::Contains("\"status\"") &&
                                                           Catch::Contains("crashed"));
    j["runs"][0]["status"] = 3;
    CHECK_THROWS_WITH(result_from_json(j, "odd.json"),
                      Catch::Contains("\"status\"") && Catch::Contains("wrong type"));
}

TEST_CASE("fields written only when set are absent or null until they are", "[result]") {
    ResultFile f = sample_result();
    auto j = to_json(f);
    const auto& run = j["runs"][0];
    for (const char* k : {"reason", "load_secondary", "load_secondary_unit", "latency", "perf"})
        CHECK_FALSE(run.contains(k));
    CHECK(j["finished_at"].is_null());
    CHECK(j["loads"].is_object());

    f.runs[0].status = RunStatus::load_failed;
    f.runs[0].reason = "cpu_load did no work";
    f.runs[0].load_secondary_unit = "passes";  // a secondary of 0 is still written
    f.runs[0].latency = {{"p99_us", 120}};
    f.finished_at = "2026-11-30T01:00:00Z";
    j = to_json(f);
    CHECK(j["runs"][0]["load_secondary"] == 0);
    CHECK(j["finished_at"] == "2026-11-30T01:00:00Z");
    ResultFile back = result_from_json(j, "set.json");
    CHECK(back.runs[0].reason == "cpu_load did no work");
    CHECK(back.runs[0].load_secondary_unit == "passes");
    CHECK(back.runs[0].latency["p99_us"] == 120);
    CHECK(back.runs[0].perf.is_null());
    CHECK(back.finished_at == "2026-11-30T01:00:00Z");
    CHECK(to_json(back) == j);
}

TEST_CASE("an atomic write never replaces a FIFO, a device or a link", "[result]") {
    test::ScratchDir scratch("atomic-kinds");
    const auto fifo = scratch / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto target = scratch / "target";
    { std::ofstream(target) << "kept\n"; }
    const auto link = scratch / "link";
    std::filesystem::create_symlink(target, link);

    for (const auto& path : {fifo, link, std::filesystem::path("/dev/null")}) {
        INFO(path);
        auto error = try_write_file_atomically(path, "new\n");
        REQUIRE(error);
        CHECK_THAT(*error, Catch::Contains("not a regular file"));
        CHECK(std::filesystem::exists(path.string() + ".tmp." + std::to_string(::getpid())) ==
              false);
    }
    CHECK(std::filesystem::is_fifo(fifo));
    CHECK(std::filesystem::is_symlink(link));
    CHECK(test::slurp(target) == "kept\n");
    CHECK(std::filesystem::is_character_file("/dev/null"));
    // A regular file, and a new one, are written as before.
    CHECK_FALSE(try_write_file_atomically(target, "new\n"));
    CHECK(test::slurp(target) == "new\n");
    CHECK_FALSE(try_write_file_atomically(scratch / "fresh", "x\n"));
}
