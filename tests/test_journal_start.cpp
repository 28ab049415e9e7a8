// `contest run --journal FILE` of a place of kernels: the run started from
// its journal alone by its place's life (places.h, PlaceInfo::journal_life),
// FILE the run's own journal, so that whoever wrote FILE (contest track's
// point) finds the run's files by reading it back. The guests here are the
// stand-in QEMU (stand_in_qemu.h: the guest's contest run on this host, no
// TCG), the reboots a stand-in machine's (grub's tools on PATH that record
// what they are asked).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/cli/run_options.h"
#include "contest/result/result_file.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/journal_file.h"
#include "stand_in_qemu.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// Every file under folder whose name ends in .run-journal.
std::vector<fs::path> journals_under(const fs::path& folder) {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(folder))
        if (e.path().extension() == kJournalExtension) found.push_back(e.path());
    return found;
}

// A machine for --boot starts that reboots nothing (test_boot.cpp's, cut
// down to grub): a scratch folder a boot keeps, a root with grub's menu for
// the unit, and grub's tools on PATH, each call a line of `asked`.
struct GrubMachine {
    test::ScratchDir dir{"journal-boot", test::scratch_kept_at_boot()};
    fs::path root = dir / "root", bin = dir / "bin", asked = dir / "asked";
    std::string path;

    GrubMachine() {
        test::put_recording_tools(
            bin, {"grub-reboot", "grub-editenv", "bootctl", "reboot", "systemctl"}, asked);
        test::put_file(root / "boot/grub/grub.cfg",
                       "menuentry 'Debian, with Linux 6.1-rt' --class debian {\n"
                       "\tlinux /boot/vmlinuz-6.1-rt ro\n}\n"
                       "menuentry 'Debian, with Linux 6.1' --class debian {\n"
                       "\tlinux /boot/vmlinuz-6.1 ro\n}\n");
        const char* p = std::getenv("PATH");
        path = p ? p : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + path).c_str(), 1);
    }
    ~GrubMachine() { ::setenv("PATH", path.c_str(), 1); }
    GrubMachine(const GrubMachine&) = delete;
    GrubMachine& operator=(const GrubMachine&) = delete;

    // The journal of a --boot run of two grub entries, one round, into
    // results, as a caller makes it: its words resolved and how it boots.
    RunJournal journal_of(const fs::path& results) const {
        std::vector<std::string> words = {"--boot",
                                          "rt=Debian, with Linux 6.1-rt",
                                          "--boot",
                                          "std=Debian, with Linux 6.1",
                                          "--boot-method",
                                          "grub",
                                          "--boot-root",
                                          root.string(),
                                          "--results",
                                          results.string(),
                                          "-n",
                                          "1"};
        for (auto& w : test::quick_run_words(dir / "work")) words.push_back(std::move(w));
        words.emplace_back("no_load");
        return boot_batch_journal_of(words);
    }

    test::Outcome contest(const std::vector<std::string>& words) const {
        return test::run_contest_binary(words, dir.path(), dir.path());
    }
};

}  // namespace

TEST_CASE(
    "contest run --journal FILE of --kernel: the run started from the journal alone, FILE its own "
    "journal, its turns planned and its result files named there",
    "[run][journal][e2e]") {
    test::ScratchDir dir("journal-guests");
    test::put_stand_in_qemu(dir / "bin", dir / "booted", "none", 0);
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const fs::path image = dir / "vmlinuz-6.99.0-journal";
    test::put_file(image, test::fake_bzimage("6.99.0-journal (t@h) #1 SMP"));
    const fs::path results = dir / "results";
    RunJournal given;
    std::vector<std::string> words = {"--kernel",
                                      "a=" + image.string(),
                                      "--kernel",
                                      "b=" + image.string(),
                                      "--vm-accel",
                                      "tcg",
                                      "--vm-disk",
                                      "64",
                                      "--no-drop-caches",
                                      "--no-history",
                                      "-n",
                                      "2",
                                      "--results",
                                      results.string()};
    for (auto& w : test::quick_run_words(dir / "work")) words.push_back(std::move(w));
    words.emplace_back("no_load");
    given.config = run_config_of(words);
    make_paths_absolute(given.config);
    const fs::path file = dir / "point.run-journal";
    write_run_journal(file, given);

    fs::create_directories(dir / "elsewhere");
    const auto o = test::run_contest_binary({"run", "--journal", file.string()}, dir.path(),
                                            dir / "elsewhere");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    // FILE read back says it all: the turns, each done, and each label's file.
    const RunJournal back = read_run_journal(file);
    CHECK(back.config.place == RunPlace::guests);
    CHECK(back.turns.list.size() == 4);  // 2 kernels x 2 rounds
    for (const auto& turn : back.turns.list) CHECK(turn.status == TurnStatus::done);
    REQUIRE(back.results.size() == 2);
    for (std::size_t v = 0; v < 2; ++v) {
        const std::string label = v == 0 ? "a" : "b";
        INFO(label);
        CHECK(back.results[v].parent_path() == results / label);
        const ResultFile f = read_result_file(back.results[v]);
        CHECK(f.complete);
        CHECK(f.runs.size() == 2);
        for (const auto& r : f.runs) CHECK(r.ok());
    }
    // The run's one journal is FILE: none made beside its files.
    CHECK(journals_under(results).empty());
    CHECK(fs::is_empty(dir / "elsewhere"));
    CHECK_FALSE(fs::exists(results / "history.sqlite"));
    // --resume FILE opens it as any run's journal, its files where it
    // names them: complete, nothing to resume.
    const auto resumed = test::run_contest_binary({"run", "-q", "--resume", file.string()},
                                                  dir.path(), dir / "elsewhere");
    CHECK(resumed.exit_code == 2);
    CHECK(resumed.err.find("--resume " + back.results[0].string() +
                           ": this result file is complete") != std::string::npos);
    // Given again, it is a run's own journal: --journal refuses it, one line.
    const auto again = test::run_contest_binary({"run", "--journal", file.string()}, dir.path());
    CHECK(again.exit_code == 2);
    CHECK(again.err == "contest: --journal " + file.string() +
                           ": a run's own journal (it plans turns): continue it with --resume\n");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest run --journal FILE of --boot: started from the journal alone (its config and how it "
    "boots), FILE its results folder's journal, and no other path",
    "[run][journal][boot][e2e]") {
    const GrubMachine machine;
    const fs::path results = machine.dir / "results";
    fs::create_directories(results);
    const fs::path file = results / kRunJournalName;
    write_run_journal(file, machine.journal_of(results));

    const auto o = machine.contest({"run", "--journal", file.string()});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    // The start's: the first reboot asked, and FILE the run's journal, its
    // boot facts naming each label's file in the results folder.
    const std::string asked = test::slurp(machine.asked);
    CHECK(asked.find("grub-reboot ") != std::string::npos);
    CHECK(asked.find("reboot \n") != std::string::npos);
    const BootRunFile run = read_boot_run(file);
    CHECK(run.state.method == BootMethod::grub);
    CHECK(run.turns.list.size() == 2);
    REQUIRE(run.state.labels.size() == 2);
    for (const auto& label : run.state.labels)
        CHECK(fs::path(label.result).parent_path() == results / label.label);
    CHECK(fs::exists(boot_unit_path(machine.root)));
    CHECK(read_run_journal(file).config.place == RunPlace::boot);
    // Stopped, as any --boot run is.
    CHECK(machine
              .contest({"run", "--boot-abort", "--results", results.string(), "--boot-root",
                        machine.root.string()})
              .exit_code == 0);
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));

    // Elsewhere than its results folder's journal: refused, one line, exit 2.
    const fs::path other_results = machine.dir / "other";
    fs::create_directories(other_results);
    const fs::path elsewhere = machine.dir / "point.run-journal";
    write_run_journal(elsewhere, machine.journal_of(other_results));
    const auto refused = machine.contest({"run", "--journal", elsewhere.string()});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err == "contest: --journal " + elsewhere.string() +
                             ": a --boot run's journal is its results folder's, " +
                             (other_results / kRunJournalName).string() + ": write it there\n");
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));

    // A --boot journal without how it boots: refused, one line, exit 2.
    RunJournal no_boot = machine.journal_of(other_results);
    no_boot.boot.reset();
    write_run_journal(other_results / kRunJournalName, no_boot);
    const auto bare =
        machine.contest({"run", "--journal", (other_results / kRunJournalName).string()});
    CHECK(bare.exit_code == 2);
    CHECK(bare.err ==
          "contest: a --boot run's journal needs its boot section (how the run boots)\n");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("contest run --journal of a file that is no journal: one line, exit 2",
          "[run][journal][e2e]") {
    test::ScratchDir dir("journal-bad");
    test::put_file(dir / "bad.run-journal", "{\"schema\": 5, \"config\": 7}");
    const auto o = test::run_contest_binary(
        {"run", "--journal", (dir / "bad.run-journal").string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.find((dir / "bad.run-journal").string()) != std::string::npos);
}
