// ctar_load, xtar_load and dbench_load: the real programs run, over and over,
// inside the load's private folder.
#include <catch2/catch.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/spawn.h"
#include "loads/load_files.h"
#include "test_loads_support.h"

using namespace contest;
using contest::test::LoadUnderTest;

namespace {

// A small source tree: 40 folders of 10 files of 32 KiB (12.5 MiB), and a
// symlink out of it, in scratch/src; options that name it as the workload's.
LoadOptions with_source_tree(const test::ScratchDir& scratch) {
    std::filesystem::path root = scratch.path() / "src";
    std::string text(32 << 10, 'x');
    for (int d = 0; d < 40; ++d) {
        auto folder = root / ("dir" + std::to_string(d));
        std::filesystem::create_directories(folder);
        for (int f = 0; f < 10; ++f)
            std::ofstream(folder / ("file" + std::to_string(f) + ".c")) << text;
    }
    std::filesystem::create_symlink("/etc/passwd", root / "outside-link");
    LoadOptions options;
    options.workload_source = root;
    return options;
}

}  // namespace

TEST_CASE("ctar_load archives the workload's tree over and over", "[loads][slow]") {
    test::ScratchDir source("ctar-source");
    LoadUnderTest ctar("ctar_load", with_source_tree(source));
    CHECK(ctar.facts()["source_bytes"].get<std::uint64_t>() >= 12 * kMiB);
    ctar.start();
    CHECK(test::eventually([&] { return ctar.secondary() >= 2; }));  // archives completed
    CHECK(ctar.units() >= 2 * 12.0);                                 // MiB archived
    CHECK_FALSE(ctar.failure());
    ctar.stop();
    CHECK(test::entries_under(ctar.folder()) == 0);  // the archive goes with the load
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("xtar_load extracts an archive of the tree over and over", "[loads][slow]") {
    test::ScratchDir source("xtar-source");
    LoadUnderTest xtar("xtar_load", with_source_tree(source));
    // The archive was made in prepare(), untimed, and is already unlinked.
    CHECK(xtar.facts()["archive_bytes"].get<std::uint64_t>() >= 12 * kMiB);
    CHECK(test::entries_under(xtar.folder()) == 0);
    xtar.start();
    CHECK(test::eventually([&] { return xtar.secondary() >= 2; }));
    CHECK(xtar.units() >= 2 * 12.0);
    CHECK(test::eventually(
        [&] { return std::filesystem::exists(xtar.folder() / "extracted" / "src" / "dir0"); }));
    CHECK_FALSE(xtar.failure());
    xtar.stop();
    // Extracting never wrote through the symlink in the tree.
    CHECK(std::filesystem::is_symlink(source.path() / "src" / "outside-link"));
    std::filesystem::path folder = xtar.folder();
    xtar.remove_folder();
    CHECK_FALSE(std::filesystem::exists(folder));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("the tar loads refuse a missing source tree", "[loads]") {
    LoadOptions options;
    options.workload_source = "/nonexistent/contest-source";
    CHECK_THROWS_AS(LoadUnderTest("ctar_load", options), EnvironmentError);
    CHECK_THROWS_AS(LoadUnderTest("xtar_load", options), EnvironmentError);
}

TEST_CASE("dbench_load runs dbench with 16 x CPUs clients in its folder", "[loads][slow]") {
    if (!find_on_path("dbench")) {
        WARN("dbench is not installed: skipped");
        return;
    }
    LoadUnderTest dbench("dbench_load");
    CHECK(dbench.facts()["clients"] == 16 * online_cpus());
    dbench.start();
    CHECK(test::eventually([&] { return dbench.units() > 0; }));  // k dbench ops
    CHECK(test::eventually([&] { return std::filesystem::exists(dbench.folder() / "clients"); }));
    CHECK_FALSE(dbench.failure());
    dbench.stop();
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("dbench_load is unavailable, naming the package, when dbench is not on PATH", "[loads]") {
    const char* saved = std::getenv("PATH");
    std::string path = saved ? saved : "";
    ::setenv("PATH", "/nonexistent", 1);
    auto why = find_load("dbench_load")->unavailable(LoadOptions{});
    bool refused = false;
    try {
        resolve_loads({"dbench_load"}, LoadOptions{});
    } catch (const EnvironmentError&) {
        refused = true;
    }
    ::setenv("PATH", path.c_str(), 1);
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("dbench") && Catch::Contains("Debian package"));
    CHECK(refused);
}
