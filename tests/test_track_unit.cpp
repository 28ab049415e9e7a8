// contest track's systemd unit started by a real systemd: a TCG guest whose
// PID 1 is the host's own systemd (InitMode::systemd_machine, the host's
// root read-only under an overlay on a scratch disk) is the lab's machine.
// `make install`'s files (cmake --install of this build, into a staging
// folder copied onto the guest's root) give it the unit and the timer where
// make install puts them; the robot's tree is a plain `git clone` of an
// upstream in the guest that gains a tag after the clone; `systemctl start
// contest-track@demo.service` fetches it and tracks both points into the
// track's state and database, and `systemctl start contest-track@demo.timer`
// is accepted. Each point's `contest run --kernel` is the real one, on the
// kbuild stand-in tree (a build in a blink) with a stand-in QEMU first on
// the unit's PATH (the guest's contest run as the guest, with no nested
// emulation): t0 is stored, t1 (fetched) does not build. In `make
// test-long` (ctest vm_track_unit): the guest is up in 30-50 s.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contest/history/history_db.h"
#include "contest/history/series.h"
#include "contest/track/track_state.h"
#include "contest/track/tracking.h"
#include "contest/vm/guest.h"
#include "systemd_guest.h"
#include "test_helpers.h"
#include "track_guest.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// The guest's one step after multi-user.target: install, clone, start the
// unit and its timer, copy what they left to the share, power off.
const char* const kGuestStep = R"SH(exec > /mnt/out/step.log 2>&1
set -x
# make install's files, the stand-in QEMU, the upstream and its clone.
sh /mnt/out/track-machine.sh
cp /mnt/out/demo.conf /etc/contest/track/demo.conf
systemctl daemon-reload
systemctl cat contest-track@demo.service > /mnt/out/unit.txt
systemctl start contest-track@demo.service
echo $? > /mnt/out/service-exit
systemctl show -p Result,ExecMainStatus contest-track@demo.service > /mnt/out/service-show
journalctl -b -u contest-track@demo.service --no-pager -o cat > /mnt/out/service-journal
git -C /srv/contest/linux rev-parse HEAD main origin/main t1 > /mnt/out/clone-refs
git -C /srv/upstream rev-parse t1 > /mnt/out/upstream-t1
cp -a /var/lib/contest/track /mnt/out/track
systemctl start contest-track@demo.timer
echo $? > /mnt/out/timer-exit
systemctl is-active contest-track@demo.timer > /mnt/out/timer-active
systemctl list-timers --all --no-pager contest-track@demo.timer > /mnt/out/timer-list
echo 'contest-guest: done' > /dev/console
systemctl --no-block poweroff
)SH";

}  // namespace

TEST_CASE(
    "contest-track@.service under a real systemd in a TCG guest: make install's unit fetches a "
    "plain clone's branch and tracks its points into the state and database, and its timer "
    "starts",
    "[vm][vm-track-unit]") {
    REQUIRE_FALSE(test::debian_kernel_package().empty());
    REQUIRE(fs::exists("/lib/systemd/systemd"));
    test::require_program("cmake");
    test::ScratchDir dir("track-unit", test::scratch_kept_at_boot());
    const test::SystemdMachineImages images("track-unit-images");
    const fs::path disk = dir / "disk.img", out = dir / "out";
    REQUIRE(test::shell_output("truncate -s 1G " + disk.string() + " && mkfs.ext4 -q -F " +
                               disk.string() + " && echo made") == "made");
    fs::create_directories(out);

    test::put_track_machine(out);
    fs::path unit, timer;
    for (const auto& e : fs::recursive_directory_iterator(out / "stage")) {
        if (e.path().filename() == "contest-track@.service") unit = e.path();
        if (e.path().filename() == "contest-track@.timer") timer = e.path();
    }
    REQUIRE_FALSE(unit.empty());
    REQUIRE_FALSE(timer.empty());
    test::put_file(out / "demo.conf",
                   "TREE=/srv/contest/linux\nBRANCH=main\nFROM=t0\nEVERY=tag\n"
                   "RUN_WORDS=--workdir /var/tmp/contest-work --vm-accel tcg --vm-cpus 1 "
                   "--vm-disk 64 -w command --workload-cmd true --warmup 0 --timeline-hz 0 "
                   "--no-drop-caches no_load\n"
                   "TRACK_OPTIONS=--runs 1 --measure time:no_load\n");
    test::put_file(out / "step.sh", kGuestStep);
    test::put_file(out / "units/contest-track-demo-step.service",
                   "[Unit]\nDescription=contest track unit demo: the step\n"
                   "After=multi-user.target\nConditionPathExists=!/mnt/out/service-exit\n"
                   "[Service]\nType=oneshot\nExecStart=/bin/sh /mnt/out/step.sh\n");

    GuestBoot boot;
    boot.kernel = images.kernel.image;
    boot.initramfs = images.initramfs.path;
    boot.scratch_disk = disk;
    boot.out_dir = out;
    boot.console_log = dir / "console.log";
    boot.accel = Accel::tcg;
    boot.boot_timeout_s = 300;
    boot.timeout_s = 600;
    boot.end_grace_s = 120;
    boot.append = "systemd.unit=multi-user.target systemd.show_status=1";
    for (const auto& u : test::units_to_mask()) boot.append += " systemd.mask=" + u;
    test::ConsoleClock clock(boot.console_log, {{"Starting contest-track@demo", "track started"},
                                                {"Finished contest-track@demo", "track finished"},
                                                {"Started contest-track@demo", "timer started"}});
    const GuestOutcome o = run_guest(boot, [&](double now, bool) { clock.tick(now); });
    clock.tick(o.total_s);
    std::ostringstream timeline;
    for (const auto& e : clock.events()) timeline << e.at_s << " s  " << e.what << "\n";
    INFO(o.failure << "\nconsole: " << console_tail(boot.console_log, 40)
                   << "\nstep: " << test::slurp(out / "step.log") << "\nunit's journal: "
                   << test::slurp(out / "service-journal") << "\ntimeline:\n"
                   << timeline.str());
    REQUIRE(o.finished);
    CHECK(test::leftover_processes().empty());

    // The unit systemd ran is make install's, contest's installed binary
    // its ExecStart, the fetch contest's own.
    const std::string unit_text = test::slurp(out / "unit.txt");
    CHECK_THAT(unit_text,
               Catch::Contains("# " + ("/" / unit.lexically_relative(out / "stage")).string()));
    CHECK_THAT(unit_text, Catch::Contains("track ${TREE} --fetch --branch origin/${BRANCH}"));
    CHECK(test::slurp(out / "service-exit") == "0\n");
    const std::string shown = test::slurp(out / "service-show");
    CHECK_THAT(shown, Catch::Contains("Result=success\n"));
    CHECK_THAT(shown, Catch::Contains("ExecMainStatus=0\n"));

    // The fetch: origin/main is upstream's new head and t1 came with it;
    // the clone's own branch and work tree as the clone left them.
    std::istringstream refs(test::slurp(out / "clone-refs"));
    std::string head, main, origin_main, t1;
    refs >> head >> main >> origin_main >> t1;
    const std::string upstream_t1 = test::slurp(out / "upstream-t1");
    const std::string t0 = test::sh(out / "upstream", "git rev-parse t0");
    CHECK(head == t0);
    CHECK(main == t0);
    CHECK(origin_main + "\n" == upstream_t1);
    CHECK(t1 == origin_main);

    // The track: both points, t0 stored (its run through the stand-in
    // QEMU), t1 recorded failed at its build; the state names origin/main.
    const fs::path folder = out / "track" / "demo";
    const track::TrackState state = track::read_track_state(folder / track::kTrackStateFile);
    CHECK(state.tree == "/srv/contest/linux");
    CHECK(state.branch == "origin/main");
    REQUIRE(state.points.size() == 2);
    CHECK(state.points[0].name == "t0");
    CHECK(state.points[0].status == track::PointStatus::stored);
    CHECK(state.points[1].name == "t1");
    CHECK(state.points[1].commit + "\n" == upstream_t1);
    CHECK(state.points[1].status == track::PointStatus::failed);
    CHECK_THAT(state.points[1].why, Catch::Contains("the stand-in fails here"));
    // The database beside the track's folder (--results' parent): t0's run.
    history::HistoryDb db(history::db_target((out / "track" / "history.sqlite").string(), out),
                          history::OpenFor::reading);
    const auto series = history::list_series(db, "wall_s");
    REQUIRE(series.size() == 1);
    CHECK(series[0].kernels == 1);
    CHECK(series[0].runs == 1);

    // The timer: accepted and waiting.
    CHECK(test::slurp(out / "timer-exit") == "0\n");
    CHECK(test::slurp(out / "timer-active") == "active\n");

    WARN("QEMU start to its end: " << o.total_s << " s (up after " << o.up_s << " s)");
    WARN("timeline (host seconds since QEMU's start):\n" << timeline.str());
    WARN("the unit's journal:\n" << test::slurp(out / "service-journal"));
    WARN(test::slurp(out / "timer-list"));
}
