// `contest run --boot` under a real systemd: a TCG guest whose PID 1 is the
// host's own systemd (InitMode::systemd_machine: the host's root read-only
// under an overlay whose upper layer is the scratch disk) is the machine.
// After the first step nothing but systemd drives the run: the unit contest
// installs starts after each boot, `systemctl --no-block kexec` boots the
// next kernel, `systemctl --no-block reboot` comes back to QEMU's -kernel.
// Hidden (not in `make test`): each boot under emulation is the better part
// of a minute.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/result/result_file.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "systemd_guest.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

void put_guest_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// The guest's journal, copied off the scratch disk's upper layer (after a
// replay of the ext4 journal, which the last power-off may have left).
fs::path journal_off_disk(const fs::path& disk, const fs::path& to) {
    test::shell_output("e2fsck -fy " + disk.string() + " >/dev/null 2>&1");
    fs::create_directories(to);
    test::shell_output("debugfs -R 'rdump /upper/var/log/journal " + to.string() + "' " +
                       disk.string() + " 2>/dev/null");
    return to / "journal";
}

bool in_upper_layer(const fs::path& disk, const std::string& path) {
    const std::string stat =
        test::shell_output("debugfs -R 'stat " + path + "' " + disk.string() + " 2>&1");
    return stat.find("File not found") == std::string::npos;
}

}  // namespace

TEST_CASE(
    "run --boot under the host's systemd in a TCG guest: the unit contest installs takes each "
    "turn after a boot, systemctl kexec boots the next kernel, the run ends done in the default "
    "kernel and the unit is gone",
    "[.boot-systemd-demo]") {
    REQUIRE_FALSE(test::debian_kernel_package().empty());
    test::require_program("debugfs");
    test::require_program("journalctl");
    REQUIRE(fs::exists("/lib/systemd/systemd"));
    // Not under /tmp: the state is read back here, and a folder under a
    // sticky /tmp is refused as one others could change.
    test::ScratchDir dir("boot-systemd", test::scratch_kept_at_boot());
    const test::SystemdMachineImages images("boot-systemd-images");
    const KernelImage& kernel = images.kernel;
    const Initramfs& initramfs = images.initramfs;
    const fs::path disk = dir / "disk.img", out = dir / "out";
    REQUIRE(std::system(("truncate -s 1G " + disk.string() + " && mkfs.ext4 -q -F " + disk.string())
                            .c_str()) == 0);
    fs::create_directories(out);

    // The guest's paths: the share is its /mnt/out, the workdir on the
    // overlay (so on the disk).
    const std::string image = images.boot_kernel();
    std::vector<std::string> argv = {CONTEST_BINARY,
                                     "run",
                                     "--boot",
                                     "a=" + image,
                                     "--boot",
                                     "b=" + image,
                                     "--boot-append",
                                     "a=contest_label=a",
                                     "--boot-append",
                                     "b=contest_label=b",
                                     "-n",
                                     "1",
                                     "-w",
                                     "command",
                                     "--workload-cmd",
                                     "true",
                                     "--warmup",
                                     "0",
                                     "--timeline-hz",
                                     "0",
                                     "--boot-root",
                                     "/",
                                     "--results",
                                     "/mnt/out/results",
                                     "--workdir",
                                     "/var/tmp/contest-work",
                                     "no_load"};
    std::string nul_words;
    for (const auto& w : argv) nul_words += w + '\0';
    put_guest_file(out / "argv", nul_words);
    // The first step, once (the argv is taken): contest as root from a
    // unit, as a user at a root shell would start it.
    put_guest_file(out / "first.sh",
                   "mv /mnt/out/argv /mnt/out/argv.taken || exit 0\n"
                   // A oneshot unit after multi-user.target, as contest's is:
                   // what the manager says of the boot while it runs.
                   "echo \"system: $(systemctl is-system-running)\" > /mnt/out/first-state\n"
                   "xargs -0 /usr/bin/env < /mnt/out/argv.taken > /mnt/out/first.log 2>&1\n"
                   "echo $? > /mnt/out/first-exit\n");
    put_guest_file(out / "units/contest-demo-first.service",
                   "[Unit]\nDescription=contest demo: the run's first step\n"
                   "After=multi-user.target\nConditionPathExists=/mnt/out/argv\n"
                   "[Service]\nType=oneshot\nExecStart=/bin/sh /mnt/out/first.sh\n");
    // The end: once the run is over (or never started), power off, which
    // ends QEMU. Ordered after contest's unit, so in the last boot it
    // finds the state contest-boot.service left.
    put_guest_file(out / "end.sh",
                   "state=/mnt/out/results/.run-journal\n"
                   // contest's unit is started once contest is (Type=exec):
                   // its step ends when the unit does.
                   "while systemctl is-active -q contest-boot.service; do sleep 2; done\n"
                   "{ date; systemctl list-jobs; systemctl --failed --no-legend; "
                   "systemctl show -p ActiveState,Result,ExecMainStatus contest-boot.service; "
                   "systemctl show-environment; echo \"previous boot's kernel log:\"; "
                   "journalctl -b -1 -k -n 3 --no-pager -o cat -q; } "
                   ">> /mnt/out/end.log 2>&1\n"
                   "if [ ! -f \"$state\" ]; then\n"
                   "  [ -f /mnt/out/first-exit ] || exit 0\n"
                   "  echo \"contest-guest: failed: the run did not start (exit $(cat "
                   "/mnt/out/first-exit))\" > /dev/console\n"
                   "elif grep -Eq '\"phase\": \"(done|stopped|aborted)\"' \"$state\"; then\n"
                   "  echo 'contest-guest: done' > /dev/console\n"
                   "else\n  exit 0\nfi\n"
                   "systemctl --no-block poweroff\n");
    put_guest_file(out / "units/contest-demo-end.service",
                   "[Unit]\nDescription=contest demo: power off once the run has ended\n"
                   "After=multi-user.target contest-boot.service contest-demo-first.service\n"
                   "[Service]\nType=exec\nExecStart=/bin/sh /mnt/out/end.sh\n");

    GuestBoot boot;
    boot.kernel = kernel.image;
    boot.initramfs = initramfs.path;
    boot.scratch_disk = disk;
    boot.out_dir = out;
    boot.console_log = dir / "console.log";
    boot.accel = Accel::tcg;
    boot.reboot_resets = true;
    boot.boot_timeout_s = 300;
    boot.timeout_s = 1800;
    // systemd's own power-off after its last word, not QEMU stopped.
    boot.end_grace_s = 120;
    boot.append = "systemd.unit=multi-user.target systemd.show_status=1";
    for (const auto& unit : test::units_to_mask()) boot.append += " systemd.mask=" + unit;

    test::ConsoleClock clock(boot.console_log, {{"Starting contest-demo-f", "first step"}});
    const GuestOutcome o = run_guest(boot, [&](double now, bool) { clock.tick(now); });
    clock.tick(o.total_s);
    std::ostringstream timeline;
    for (const auto& e : clock.events()) timeline << e.at_s << " s  " << e.what << "\n";
    INFO(o.failure << "\nconsole: " << console_tail(boot.console_log, 40)
                   << "\nfirst step: " << test::slurp(out / "first.log") << "\ntimeline:\n"
                   << timeline.str());
    REQUIRE(o.finished);
    CHECK(test::leftover_processes().empty());
    // systemd powered the guest off itself: QEMU was not stopped after the grace.
    for (const auto& e : clock.events())
        if (e.what == "done") CHECK(o.total_s < e.at_s + boot.end_grace_s);

    const fs::path results = out / "results";
    const BootRunFile run = read_boot_run(results / kRunJournalName);
    const BootState& s = run.state;
    CHECK(s.phase == BootPhase::done);
    REQUIRE(run.turns.list.size() == 2);
    for (const auto& turn : run.turns.list) CHECK(turn.status == TurnStatus::done);
    // One boot a turn and the one back.
    REQUIRE(s.boots.size() == 3);
    CHECK(s.boots.back().outcome == "back");
    CHECK(s.boots.back().cmdline == s.start_cmdline);
    for (const std::string label : {"a", "b"}) {
        std::vector<std::string> bad;
        const auto files = read_result_paths({results / label}, bad);
        REQUIRE(files.size() == 1);
        CHECK(files[0].complete);
        REQUIRE(files[0].runs.size() == 1);
        for (const auto& r : files[0].runs) {
            CHECK(r.ok());
            CHECK(r.booted["release"] == kernel.release);
            CHECK(r.booted["cmdline"].get<std::string>().find("contest_label=" + label) !=
                  std::string::npos);
        }
    }
    // What contest reads of a boot that failed (journalctl -b -1 -k) is there:
    // the journal is kept on the disk across the kexecs.
    const std::string end_log = test::slurp(out / "end.log");
    const auto previous = end_log.rfind("previous boot's kernel log:\n");
    REQUIRE(previous != std::string::npos);
    CHECK(end_log.size() > previous + std::strlen("previous boot's kernel log:\n"));
    const fs::path journal = journal_off_disk(disk, dir / "journal");
    CHECK_FALSE(in_upper_layer(disk, "/upper/etc/systemd/system/contest-boot.service"));
    CHECK_FALSE(in_upper_layer(
        disk, "/upper/etc/systemd/system/multi-user.target.wants/contest-boot.service"));

    // contest's unit does not hold the boot open through the turn: every
    // boot it took a turn in (or ended the run in) finished starting.
    const std::string startups =
        test::shell_output("journalctl -D " + journal.string() +
                           " --no-pager _PID=1 2>&1 | grep -c 'Startup finished'");
    CHECK(std::stoi(startups) >= static_cast<int>(s.boots.size()));

    WARN("QEMU start to its end: " << o.total_s << " s (up after " << o.up_s << " s)");
    WARN("timeline (host seconds since QEMU's start):\n" << timeline.str());
    WARN("first step:\n" << test::slurp(out / "first.log"));
    WARN("end unit:\n" << test::slurp(out / "end.log"));
    WARN("while the first step ran, " << test::slurp(out / "first-state"));
    WARN(test::slurp(results / kRunJournalName));
    WARN("the guest's journal, boots:\n"
         << test::shell_output("journalctl -D " + journal.string() + " --list-boots 2>&1"));
    WARN("contest-boot.service and systemd in each boot:\n"
         << test::shell_output(
                "journalctl -D " + journal.string() +
                " -o short-monotonic --no-pager -u contest-boot.service 2>&1 | head -150"));
    WARN(test::shell_output("journalctl -D " + journal.string() +
                            " -o short-monotonic --no-pager _PID=1 2>&1 | grep -E "
                            "'Startup finished|contest|kexec|Reached target|ordering|cycle' | "
                            "head -80"));
}
