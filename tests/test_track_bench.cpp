// The track's real bench (drive/contest_bench.h) against a stand-in for
// contest's binary: a point and a confirmation are a journal the bench
// makes of the track's config (its run words parsed once) and a child
// `contest run --journal FILE`, their files read back from that journal;
// its timeout, interrupt and --boot runs across reboots.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_state.h"
#include "contest/cli/kernel_journal.h"
#include "contest/drive/contest_bench.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/signals.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
using contest::drive::ContestBench;
using contest::drive::ContestBenchSettings;
namespace fs = std::filesystem;

namespace {

// A stand-in for contest's binary in a scratch folder: its words recorded
// in `asked` (more lines may follow); the real bench's settings to run it.
// The run words are parsed once, as contest track parses them at its start.
struct StandInContest {
    explicit StandInContest(const std::string& tag, bool boot = false) : dir(tag) {
        test::put_file(binary, "#!/bin/sh\necho \"$*\" >> '" + asked.string() + "'\n", true);
        settings.tree = "/src/linux";
        settings.run_words = {"-w",      "command",   "--workload-cmd",
                              "true",    "--workdir", (dir / "work").string(),
                              "cpu_load"};
        settings.measure = bisect::parse_bisect_measure("time:cpu_load", {"cpu_load"});
        settings.boot = boot;
        settings.run = kernel_run_journal(settings.run_words, boot, {{"point", "/src/linux@HEAD"}});
        make_paths_absolute(settings.run.config);
        settings.binary = binary;
    }
    // The journal the bench made for the run in `folder`, as the child reads it.
    static RunJournal journal_in(const fs::path& folder) {
        return read_run_journal(folder / kRunJournalName);
    }
    test::ScratchDir dir;
    fs::path asked = dir / "asked", binary = dir / "contest";
    ContestBenchSettings settings;
};

// A result file of the point's label, started then, with no run.
std::string point_file_text(const std::string& started_at) {
    ResultFile file;
    file.label = kPointLabel;
    file.started_at = started_at;
    file.complete = true;
    return to_json(file).dump();
}

}  // namespace

TEST_CASE(
    "track: the real bench runs a point as contest run --journal of a journal it made, says why "
    "a run failed, stops one past --run-timeout, and passes an interrupt on",
    "[track]") {
    // What $MODE says after the words.
    StandInContest s("track-bench");
    const fs::path dir = s.dir.path(), asked = s.asked;
    test::put_file(s.binary,
                   test::slurp(s.binary) + "mode=$(cat '" + (dir / "mode").string() +
                       "')\ncase $mode in\n  slow) exec sleep 30 ;;\n  fails) echo 'make: *** "
                       "[bzImage] Error 2'; echo 'contest: error: the kernel of point does not "
                       "build'; exit 3 ;;\n  cut) exit 130 ;;\nesac\n",
                   true);
    ContestBenchSettings settings = s.settings;
    settings.run_timeout_s = 1;
    ContestBench bench(settings);
    const std::string a(40, 'a'), b(40, 'b');

    test::put_file(dir / "mode", "fails");
    try {
        bench.measure_point(a, dir / "p1");
        FAIL("no PointFailed");
    } catch (const PointFailed& e) {
        CHECK_THAT(e.what(), Catch::Contains("contest run exited 3: contest: error: the kernel of "
                                             "point does not build"));
    }
    // A child given the journal, no word of the run.
    CHECK(test::slurp(asked) == "run --journal " + (dir / "p1" / kRunJournalName).string() + "\n");
    CHECK(fs::exists(dir / "p1" / "contest.log"));
    // The journal: the track's config (its run words, parsed once), the
    // point's kernel, rounds and folder, and no results database.
    {
        const RunJournal j = StandInContest::journal_in(dir / "p1");
        REQUIRE(j.config.kernels.size() == 1);
        CHECK(j.config.kernels[0].label == "point");
        CHECK(j.config.kernels[0].image == "/src/linux@" + a);
        CHECK(j.config.place == RunPlace::guests);
        CHECK(j.config.runs == 3);
        CHECK(j.config.results_dir == dir / "p1");
        CHECK(j.config.sinks.empty());
        CHECK(j.config.workload.kind == "command");
        CHECK(j.config.workload.workload_cmd == "true");
        CHECK(j.config.workload.workdir == dir / "work");
        CHECK(j.config.loads == std::vector<std::string>{"cpu_load"});
        CHECK_FALSE(j.boot);
        CHECK(j.results.empty());
        CHECK(j.turns.list.empty());
        // Its files record the words that would run it by hand.
        CHECK(join(j.config.command_line, " ") ==
              "run --kernel=point=/src/linux@" + a +
                  " --runs=3 --results=" + (dir / "p1").string() +
                  " --no-history -w command --workload-cmd true --workdir " +
                  (dir / "work").string() + " cpu_load");
    }

    test::put_file(dir / "mode", "slow");
    const auto started = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(bench.compare(a, b, dir / "c1"), Catch::Contains("took longer than 1 s"));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(10));
    // A confirmation's journal: both kernels in their order, its rounds.
    {
        const RunJournal j = StandInContest::journal_in(dir / "c1");
        REQUIRE(j.config.kernels.size() == 2);
        CHECK(j.config.kernels[0].label == "before");
        CHECK(j.config.kernels[0].image == "/src/linux@" + a);
        CHECK(j.config.kernels[1].label == "after");
        CHECK(j.config.kernels[1].image == "/src/linux@" + b);
        CHECK(j.config.runs == 5);
        CHECK(j.config.results_dir == dir / "c1");
        CHECK(j.config.sinks.empty());
    }

    test::put_file(dir / "mode", "cut");
    CHECK_THROWS_AS(bench.measure_point(a, dir / "p2"), Interrupted);
    // An interrupt to the track alone (kill PID, not its group: the run
    // sees none) stops its run: in a child of the test, whose interrupt
    // flag stays raised once raised.
    test::put_file(dir / "mode", "slow");
    std::fflush(nullptr);
    const pid_t tester = ::fork();
    REQUIRE(tester >= 0);
    if (tester == 0) {
        install_interrupt_handlers();
        int rc = 1;  // the run ended by itself
        try {
            ContestBenchSettings unbounded = settings;
            unbounded.run_timeout_s = 0;
            ContestBench(unbounded).measure_point(a, dir / "p3");
        } catch (const Interrupted&) {
            rc = 0;
        } catch (...) {
            rc = 3;
        }
        ::_exit(rc);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::kill(tester, SIGINT);
    int status = 0;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (::waitpid(tester, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (std::chrono::steady_clock::now() >= give_up) {
        ::kill(tester, SIGKILL);
        ::waitpid(tester, &status, 0);
        FAIL("the track's bench was still waiting for its run 20 s after the interrupt");
    }
    INFO("0: interrupted, 1: the run ended by itself, 3: another error");
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(test::leftover_processes().empty());
    // A bisection past its own bound: stopped within the second, said.
    test::put_file(dir / "mode", "slow");
    ContestBenchSettings bounded = settings;
    bounded.run_timeout_s = 0;
    bounded.bisect_timeout_s = 1;
    const auto bisect_started = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(ContestBench(bounded).bisect(a, b, dir / "y" / "bisect"),
                      Catch::Contains("took longer than 1 s"));
    CHECK(std::chrono::steady_clock::now() - bisect_started < std::chrono::seconds(10));
    // A bisection that ends before its state is made: said, with its last words.
    test::put_file(dir / "mode", "fails");
    CHECK_THROWS_WITH(bench.bisect(a, b, dir / "x" / "bisect"),
                      Catch::Contains("before its state was made: contest: error"));
    CHECK_THAT(
        test::slurp(asked),
        Catch::Contains("bisect --good=/src/linux@" + a + " --bad=/src/linux@" + b +
                        " --measure=time:cpu_load --results=" + (dir / "x" / "bisect").string() +
                        " -- -w command --workload-cmd true --workdir " + (dir / "work").string() +
                        " cpu_load"));
    // --bisect-step-max-rounds: bisect's --step-max-rounds, before its --.
    ContestBenchSettings patient = settings;
    patient.bisect_step_max_rounds = 16;
    CHECK_THROWS(ContestBench(patient).bisect(a, b, dir / "z" / "bisect"));
    CHECK_THAT(test::slurp(asked),
               Catch::Contains("bisect --step-max-rounds=16 --good=/src/linux@" + a));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track: the real bench under --boot gives contest run --journal a journal of how it boots, "
    "starts contest bisect --boot, and asks a started run's state again: under way, over with "
    "the file its state names, or over without",
    "[track]") {
    // A start that asks no reboot (no state written).
    StandInContest s("track-boot-bench", true);
    const fs::path dir = s.dir.path(), asked = s.asked;
    ContestBench bench(s.settings);
    const std::string a(40, 'a'), b(40, 'b');
    const fs::path point = dir / "p1";
    CHECK_FALSE(bench.goes_on_by_itself(point));
    CHECK_THROWS_WITH(bench.measure_point(a, point),
                      Catch::Contains("contest run --boot exited 0 before its first reboot"));
    CHECK(test::slurp(asked) == "run --journal " + (point / kRunJournalName).string() + "\n");
    // The journal: the point's kernel booted as the words said (keep_own's
    // boot options), its rounds and folder, no results database.
    const RunJournal journal = StandInContest::journal_in(point);
    CHECK(journal.config.place == RunPlace::boot);
    REQUIRE(journal.config.kernels.size() == 1);
    CHECK(journal.config.kernels[0].label == "point");
    CHECK(journal.config.kernels[0].image == "/src/linux@" + a);
    CHECK(journal.config.runs == 3);
    CHECK(journal.config.results_dir == point);
    CHECK(journal.config.sinks.empty());
    REQUIRE(journal.boot);
    CHECK(journal.boot->method == BootMethod::kexec);
    CHECK(journal.boot->root == "/");
    // The bench's journal without a boot state is a start that did not
    // happen (cut before its child, or refused): begun afresh, not asked.
    CHECK_FALSE(bench.goes_on_by_itself(point));
    // The run's state as its start leaves it: under way, asked again and
    // never started twice.
    BootState state;
    state.workdir = (dir / "work").string();
    state.started_at = "2026-12-05T12:00:00Z";
    state.start_release = "6.1.0-28-amd64";
    state.binary = (point / ".boot" / "contest").string();
    state.unit_root = "/";
    state.labels = {{"point", "/src/linux@" + a, "/boot/vmlinuz-x", "", "ro", "6.1.0-contest",
                     (point / "point" / "x.json").string(), "", "", ""}};
    state.boot_max = 2;
    JournalTurns turns;
    turns.list = {{1, 0, {"cpu_load"}, TurnStatus::pending}};
    write_boot_run(point / kRunJournalName, state, turns);
    CHECK(bench.goes_on_by_itself(point));
    CHECK_THROWS_AS(bench.measure_point(a, point), AcrossReboots);
    // Over without its file: failed, with the run's note; a stray file of
    // the label in the folder is no file of this run.
    test::put_file(point / "point" / "stray.json", point_file_text("2026-12-06T12:00:00Z"));
    state.phase = BootPhase::stopped;
    state.note = "the bound of boots";
    write_boot_state(point / kRunJournalName, state);
    CHECK_THROWS_WITH(bench.measure_point(a, point),
                      Catch::Contains("its --boot run ended (stopped: the bound of boots) "
                                      "without point's file"));
    CHECK(test::slurp(asked).find('\n') == test::slurp(asked).size() - 1);  // started once
    // Over with its file: the one its state names, not the newer stray.
    test::put_file(point / "point" / "x.json", point_file_text("2026-12-05T12:00:00Z"));
    state.phase = BootPhase::done;
    write_boot_state(point / kRunJournalName, state);
    CHECK(bench.measure_point(a, point) == point / "point" / "x.json");
    // A bisection under --boot: its words, and no answer yet is a bisection
    // across reboots (its parts go on by themselves).
    const fs::path bisection = dir / "x" / "bisect";
    fs::create_directories(bisection);
    bisect::BisectState started;
    started.tree = "/src/linux";
    started.good = a;
    started.bad = b;
    bisect::write_bisect_state(bisection, started);
    CHECK_THROWS_AS(bench.bisect(a, b, bisection), AcrossReboots);
    CHECK_THAT(test::slurp(asked), Catch::Contains("bisect --boot --good=/src/linux@" + a));
}

TEST_CASE(
    "track: the real bench takes a run's files from its journal, not from a scan of its folder",
    "[track]") {
    // A stand-in run that writes its file where its journal says (the
    // journal's results given it, as a run names them at its start), or
    // (mode none) writes no file.
    StandInContest s("track-bench-files");
    const fs::path dir = s.dir.path();
    test::put_file(s.binary,
                   test::slurp(s.binary) + "[ \"$(cat '" + (dir / "mode").string() +
                       "')\" = none ] && exit 4\nd=$(dirname \"$3\")\nmkdir -p \"$d/point\"\n"
                       "cp '" +
                       (dir / "file.json").string() +
                       "' \"$d/point/new.json\"\n"
                       "sed -i \"1s|^{|{\\\"results\\\": [\\\"$d/point/new.json\\\"],|\" \"$3\"\n",
                   true);
    test::put_file(dir / "file.json", point_file_text("2026-12-05T12:00:00Z"));
    ContestBench bench(s.settings);
    const std::string a(40, 'a');
    // A file of the label already in the folder, newer than the run's: a
    // scan would take it.
    const fs::path folder = dir / "p1";
    test::put_file(folder / "point" / "stray.json", point_file_text("2026-12-06T12:00:00Z"));
    test::put_file(dir / "mode", "file");
    CHECK(bench.measure_point(a, folder) == folder / "point" / "new.json");
    CHECK(StandInContest::journal_in(folder).results ==
          std::vector<fs::path>{folder / "point" / "new.json"});
    // A run that ends without its file: failed, the stray not taken.
    const fs::path none = dir / "p2";
    test::put_file(none / "point" / "stray.json", point_file_text("2026-12-06T12:00:00Z"));
    test::put_file(dir / "mode", "none");
    CHECK_THROWS_WITH(bench.measure_point(a, none), Catch::Contains("contest run exited 4"));
    CHECK(test::leftover_processes().empty());
}
