// `contest run --boot`'s bounds, `--boot-on-failure stop` and `--boot-max`,
// on this host with stand-ins for grub-reboot and reboot: what they test
// is the run's state machine (when a turn ends the run, when the bound
// does), which is the same whichever way a kernel is booted, so it needs no
// guest. The stand-in reboot boots nothing: each later step, run as the
// unit would run it, finds the machine in its own kernel, not the label's,
// so every turn is boot_failed. A real guest's turns, measured and failed,
// are tested in [vm-boot] and [vm-boot-failures].
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/result/result_file.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// A machine booted with grub, as far as contest sees it: a root with a
// grub.cfg of two entries, stand-ins on PATH that record what they are asked.
struct GrubStandIn {
    // Not under /tmp, which a --boot run refuses for its results.
    test::ScratchDir dir{"boot-bounds", test::vm_test_workdir() / "scratch"};
    fs::path root = dir / "root", bin = dir / "bin", asked = dir / "asked",
             results = dir / "results";
    std::string old_path;

    GrubStandIn() {
        for (const char* tool : {"grub-reboot", "grub-editenv", "reboot", "systemctl"})
            write(bin / tool,
                  std::string("#!/bin/sh\necho \"") + tool + " $*\" >> '" + asked.string() + "'\n",
                  true);
        write(root / "boot/grub/grub.cfg",
              "menuentry 'Debian, with Linux 6.1-rt' --class debian {\n}\n"
              "menuentry 'Debian, with Linux 6.1' --class debian {\n}\n");
        const char* path = std::getenv("PATH");
        old_path = path ? path : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
    }
    ~GrubStandIn() { ::setenv("PATH", old_path.c_str(), 1); }

    static void write(const fs::path& path, const std::string& text, bool executable = false) {
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << text;
        if (executable) fs::permissions(path, fs::perms::owner_all | fs::perms::group_read);
    }

    test::Outcome start(const std::vector<std::string>& words) {
        std::vector<std::string> argv = {"run",
                                         "--boot",
                                         "rt=Debian, with Linux 6.1-rt",
                                         "--boot",
                                         "std=Debian, with Linux 6.1",
                                         "--boot-method",
                                         "grub",
                                         "--boot-root",
                                         root.string(),
                                         "--results",
                                         results.string(),
                                         "-w",
                                         "command",
                                         "--workload-cmd",
                                         "true",
                                         "--workdir",
                                         (dir / "work").string(),
                                         "-q"};
        argv.insert(argv.end(), words.begin(), words.end());
        return test::run_contest_binary(argv, dir.path());
    }

    // The unit's step after a reboot. This machine's boot_id never
    // changes: the step is told its boot is another by renaming those seen.
    test::Outcome step() {
        BootState before = state();
        for (auto& seen : before.boots) seen.boot_id = "earlier-" + seen.boot_id;
        write_boot_state(results / kBootStateName, before);
        return test::run_contest_binary({"run", "--boot-continue", state_path().string()},
                                        dir.path());
    }

    fs::path state_path() const { return results / kBootStateName; }
    BootState state() const { return read_boot_state(state_path()); }
};

}  // namespace

TEST_CASE("run --boot --boot-on-failure stop: the first kernel that does not come up ends the run",
          "[boot][e2e]") {
    GrubStandIn machine;
    const auto started = machine.start({"-n", "1", "--boot-on-failure", "stop", "no_load"});
    INFO(started.err);
    REQUIRE(started.exit_code == 0);
    REQUIRE(machine.state().boots_asked == 1);
    const auto o = machine.step();
    INFO(o.err);
    CHECK(o.exit_code == 1);  // the run ended with a failed run in it
    const BootState s = machine.state();
    CHECK(s.phase == "stopped");
    REQUIRE(s.turns.size() == 2);
    CHECK(s.turns[0].status == "boot_failed");
    CHECK(s.turns[1].status == "pending");
    CHECK(s.boots_asked == 1);
    CHECK(s.note.find("not " + s.labels.at(s.turns[0].label).label + "'s") != std::string::npos);
    REQUIRE(s.boots.size() == 1);
    CHECK(s.boots[0].cmdline == s.start_cmdline);
    // Nothing asked of the machine after the failure, nothing left to boot.
    CHECK(test::slurp(machine.asked) ==
          "grub-reboot " + s.labels.at(s.turns[0].label).kernel + "\nreboot \n");
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    CHECK_FALSE(fs::exists(machine.results / ".boot"));
    std::vector<std::string> bad;
    const auto files =
        read_result_paths({machine.results / s.labels.at(s.turns[0].label).label}, bad);
    REQUIRE(files.size() == 1);
    CHECK_FALSE(files[0].complete);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --boot --boot-max 2 of 3 boots: one turn, the bound, the rest left pending",
          "[boot][e2e]") {
    GrubStandIn machine;
    const auto started = machine.start({"-n", "1", "--boot-max", "2", "no_load"});
    INFO(started.err);
    REQUIRE(started.exit_code == 0);
    CHECK(machine.state().boot_max == 2);
    const auto o = machine.step();
    INFO(o.err);
    CHECK(o.exit_code == 1);  // the run ended with a failed run in it
    const BootState s = machine.state();
    CHECK(s.phase == "stopped");
    CHECK(s.note == "stopped at --boot-max 2 boots");
    REQUIRE(s.turns.size() == 2);
    CHECK(s.turns[0].status == "boot_failed");
    CHECK(s.turns[1].status == "pending");
    // The bound counts the boot the run would ask next: none asked past it.
    CHECK(s.boots_asked == 1);
    CHECK(test::slurp(machine.asked) ==
          "grub-reboot " + s.labels.at(s.turns[0].label).kernel + "\nreboot \n");
    std::vector<std::string> bad;
    const auto files =
        read_result_paths({machine.results / s.labels.at(s.turns[0].label).label}, bad);
    REQUIRE(files.size() == 1);
    CHECK_FALSE(files[0].complete);  // a run stopped short
    CHECK_FALSE(fs::exists(boot_unit_path(machine.root)));
    CHECK(test::leftover_processes().empty());
}
