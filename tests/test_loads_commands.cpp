// ctar_load, xtar_load and dbench_load: the real programs run, over and over,
// inside the load's private folder; and the user's own command (--load-cmd,
// --load-cmd-units): what ends it, what its units command may print (end to
// end in test_exec_probe.cpp).
#include <catch2/catch.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/machine.h"
#include "contest/sys/spawn.h"
#include "loads/command_load.h"
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

namespace {

// A --load-cmd load under a name of the test's own, with its units command
// when one is given; its entry (which lives as long as the process) is kept
// out of the registry, whose order other tests check.
LoadUnderTest command_load(const std::string& name, const std::string& command,
                           const std::string& units = "") {
    const LoadInfo& info = make_command_load_entry(name, command);
    if (!units.empty()) set_units_command(info, units);
    return LoadUnderTest(info);
}

// Why the load stopped, once it has (within a limit that only keeps a load
// that never stops from hanging the suite), or "" while it runs on.
std::string failure_within(const LoadUnderTest& load, std::chrono::seconds limit) {
    test::eventually([&] { return load.failure().has_value(); }, limit);
    return load.failure().value_or("");
}

}  // namespace

TEST_CASE("a --load-cmd that exits non-zero fails the load with its last line on stderr",
          "[loads][load-cmd]") {
    auto typo = command_load(
        "typo_exit", "sh -c 'echo starting >&2; echo \"unknown option --cpux\" >&2; exit 2'");
    typo.start();
    const std::string why = failure_within(typo, std::chrono::seconds(10));
    INFO(why);
    CHECK_THAT(why, Catch::Contains("exit 2") && Catch::Contains("unknown option --cpux"));
    CHECK_THAT(why, !Catch::Contains("starting"));  // the last line, not the whole log
    CHECK(typo.sample().restarts == 0);
    // All of its stderr is kept in the workdir for the user to read.
    const auto log = test::slurp(typo.workdir() / "load-typo_exit.log");
    CHECK_THAT(log, Catch::Contains("starting\nunknown option --cpux"));
    typo.stop();
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a --load-cmd that ends by itself at once fails the load, it is no restart",
          "[loads][load-cmd]") {
    auto quick = command_load("quick_exit", "true");
    quick.start();
    const std::string why = failure_within(quick, std::chrono::seconds(10));
    INFO(why);
    CHECK_THAT(
        why, Catch::Contains("ended by itself after 0.") && Catch::Contains("(nothing on stderr)"));
    CHECK(quick.sample().restarts == 0);
    quick.stop();
}

TEST_CASE("a load's stderr log is kept to its last part", "[loads][load-cmd]") {
    // 8 MiB of lines on stderr, then a last one, then the command stays up.
    auto chatty = command_load("chatty",
                               "sh -c 'yes xxxxxxxx | head -n 900000 >&2; echo the last line >&2; "
                               "exec sleep 600'");
    chatty.start();
    // The log is cut when it passes its cap (4 MiB) to its last 256 KiB; what
    // is written after the last cut stays, so the end size lies anywhere below
    // the cap (3.5 MiB seen under ASan): what must hold is that it was cut,
    // stayed below the 8 MiB written, and kept the last line.
    const auto log = chatty.workdir() / "load-chatty.log";
    CHECK(test::eventually(
        [&] {
            return test::slurp(log).ends_with("xxxxxxxx\nthe last line\n") &&
                   std::filesystem::file_size(log) <= 4 * kMiB;
        },
        std::chrono::seconds(20)));
    CHECK_FALSE(chatty.failure());
    const std::string kept = test::slurp(log);
    CHECK(kept.starts_with("contest: the lines before these were cut"));
    CHECK(kept.size() <= 4 * kMiB);
    chatty.stop();
}

TEST_CASE("a units reading that goes down while the command runs on is not taken as a restart",
          "[loads][load-cmd]") {
    auto broken =
        command_load("units_down", "sleep 600",
                     "sh -c 'if [ -e seen ]; then echo 5; else touch seen; echo 100; fi'");
    broken.start();
    const std::string why = failure_within(broken, std::chrono::seconds(10));
    INFO(why);
    CHECK_THAT(why, Catch::Contains("100, then 5") && Catch::Contains("no restart") &&
                        Catch::Contains("cannot be trusted"));
    broken.stop();
}

TEST_CASE("a units reading that goes down after the command was started again is a new count",
          "[loads][load-cmd][slow]") {
    // The first start keeps the count at 100 and ends (status 0) after 5.3
    // s; the second begins a new count, 2, then 7. Each count written whole
    // (mv), so that no reading sees half a file.
    auto again = command_load(
        "units_again",
        "sh -c 'if [ -e again ]; then echo 2 > m; mv m n; sleep 1; echo 7 > m; mv m n; "
        "exec sleep 600; fi; touch again; exec sleep 5.3'",
        "cat n");
    std::ofstream(again.folder() / "n") << "100\n";
    again.start();
    CHECK(test::eventually([&] { return again.units() >= 7; }, std::chrono::seconds(20)));
    CHECK_FALSE(again.failure());
    CHECK(again.sample().restarts == 1);
    CHECK(again.units() == 7);
    again.stop();
}

TEST_CASE("a units reading that is no count of work fails the load, saying what it printed",
          "[loads][load-cmd]") {
    int n = 0;
    for (const auto& [prints, says] : std::vector<std::pair<std::string, std::string>>{
             {"-5", "printed -5: a count of work done is 0 or more"},
             {"99999999999999999999999", "more than contest can count"},
             {"1e400", "more than contest can count"},
             {"12abc", "printed '12abc', not a number"},
             {"0x10", "printed '0x10', not a number"},
             {"nan", "printed 'nan', not a number"},
         }) {
        auto bad = command_load("units_bad" + std::to_string(n++), "sleep 600", "echo " + prints);
        bad.start();
        const std::string why = failure_within(bad, std::chrono::seconds(10));
        INFO(prints << ": " << why);
        CHECK_THAT(why, Catch::Contains("--load-cmd-units") && Catch::Contains(says));
        CHECK(bad.units() == 0);
        bad.stop();
    }
    auto silent = command_load("units_silent", "sleep 600", "true");
    silent.start();
    CHECK_THAT(failure_within(silent, std::chrono::seconds(10)),
               Catch::Contains("printed nothing"));
    silent.stop();
}

TEST_CASE("a units reading may be a decimal or in e-notation, Loads is its growth",
          "[loads][load-cmd]") {
    auto fine = command_load("units_fine", "sleep 600", "cat n");
    std::ofstream(fine.folder() / "n") << "  1.5e3 requests\n";
    fine.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a reading or two of 1500
    {
        std::ofstream(fine.folder() / "m") << "1502.25\n";
        std::filesystem::rename(fine.folder() / "m", fine.folder() / "n");
    }
    CHECK(test::eventually([&] { return fine.units() > 0; }, std::chrono::seconds(10)));
    CHECK_FALSE(fine.failure());
    CHECK(fine.units() == Approx(2.25));
    fine.stop();
}
