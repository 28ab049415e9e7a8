// One guest watched step by step (contest/vm/guest.h, RunningGuest), with a
// stand-in for qemu-system-x86_64 on PATH that boots nothing and only
// plays a guest's console: up, done, a hang, an exit of its own. What
// run_guest and a duet's round both stand on: the end grace, the timeouts,
// the pinning before exec, and QEMU stopped on every way out.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "contest/sys/cpu_affinity.h"
#include "contest/sys/errors.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// A boot of the stand-in whose body is `script` (after #!/bin/sh), its
// console in dir.
GuestBoot stand_in_boot(const test::ScratchDir& dir, const std::string& script) {
    test::put_file(dir / "bin" / "qemu-system-x86_64", "#!/bin/sh\n" + script, true);
    GuestBoot boot;
    boot.kernel = dir / "vmlinuz";
    boot.initramfs = dir / "initramfs.cpio";
    boot.console_log = dir / "console.log";
    boot.boot_timeout_s = 60;
    boot.timeout_s = 120;
    boot.end_grace_s = 0.5;
    return boot;
}

GuestOutcome watched(RunningGuest& guest) {
    while (guest.step()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return guest.finish();
}

}  // namespace

TEST_CASE("a running guest: done then hung is stopped a grace later and finished, nothing left",
          "[guest-watch]") {
    test::ScratchDir dir("guest-done-hang");
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const std::string up = kGuestUpLine, done = kGuestDoneLine;
    RunningGuest guest(
        stand_in_boot(dir, "echo '" + up + "'; echo '" + done + "'; exec sleep 600\n"));
    const GuestOutcome o = watched(guest);
    INFO(o.failure);
    CHECK(o.came_up);
    CHECK(o.finished);
    CHECK_FALSE(o.timed_out);
    // The 0.5 s grace, not the 120 s timeout nor the sleep.
    CHECK(o.total_s < 60);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a running guest: never up is killed at its boot timeout, said so", "[guest-watch]") {
    test::ScratchDir dir("guest-never-up");
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    GuestBoot boot = stand_in_boot(dir, "exec sleep 600\n");
    boot.boot_timeout_s = 1;
    RunningGuest guest(boot);
    const GuestOutcome o = watched(guest);
    CHECK_FALSE(o.came_up);
    CHECK(o.timed_out);
    CHECK(o.failure == "the guest did not come up within 1 s (--vm-boot-timeout), killed");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "a running guest up and hung is killed at --vm-timeout for each run a boot, the bound's "
    "options said",
    "[guest-watch][runs-per-boot]") {
    VmOptions vm;
    vm.timeout_s = 0.4;
    CHECK(vm.life_bound_s() == 0.4);
    CHECK(vm.life_bound_words() == "--vm-timeout");
    vm.runs_per_boot = 3;
    CHECK(vm.life_bound_s() == Approx(1.2));
    CHECK(vm.life_bound_words() == "--vm-timeout 0.4 s x --runs-per-boot 3");

    test::ScratchDir dir("guest-up-hung");
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const std::string up = kGuestUpLine;
    GuestBoot boot = stand_in_boot(dir, "echo '" + up + "'; exec sleep 600\n");
    boot.timeout_s = vm.life_bound_s();
    boot.timeout_words = vm.life_bound_words();
    RunningGuest guest(boot);
    const GuestOutcome o = watched(guest);
    CHECK(o.came_up);
    CHECK(o.timed_out);
    // Killed past the 3 runs' bound, not at one run's (nor the sleep's end).
    CHECK(o.total_s >= 1.2);
    CHECK(o.total_s < 60);
    CHECK(o.failure ==
          "the guest was still running after 1.2 s (--vm-timeout 0.4 s x --runs-per-boot 3), "
          "killed");
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a running guest: QEMU that ends by itself before done says how it ended",
          "[guest-watch]") {
    test::ScratchDir dir("guest-exits");
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const std::string up = kGuestUpLine;
    RunningGuest guest(stand_in_boot(dir, "echo '" + up + "'; exit 3\n"));
    const GuestOutcome o = watched(guest);
    CHECK(o.came_up);
    CHECK_FALSE(o.finished);
    CHECK(o.failure == "QEMU ended (exit 3) before the guest finished its runs");
}

TEST_CASE(
    "a running guest pinned to host CPUs runs on them from its start, and a refused set is "
    "said and leaves nothing",
    "[guest-watch]") {
    test::ScratchDir dir("guest-pinned");
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const std::vector<int> allowed = allowed_cpus();
    REQUIRE_FALSE(allowed.empty());
    const std::string up = kGuestUpLine, done = kGuestDoneLine;
    // Its CPUs as the kernel has them, read by itself before anything else.
    GuestBoot boot = stand_in_boot(
        dir, "sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/$$/status > '" +
                 (dir / "cpus").string() + "'\necho '" + up + "'; echo '" + done + "'\n");
    boot.host_cpus = {allowed.back()};
    {
        RunningGuest guest(boot);
        CHECK(watched(guest).finished);
    }
    CHECK(test::slurp(dir / "cpus") == std::to_string(allowed.back()) + "\n");

    // A CPU no machine here has: the kernel refuses the set before QEMU runs.
    boot.host_cpus = {8191};
    fs::remove(dir / "cpus");
    REQUIRE_THROWS_WITH(RunningGuest(boot),
                        Catch::Contains("cannot pin") && Catch::Contains("to CPUs 8191"));
    CHECK_FALSE(fs::exists(dir / "cpus"));
    CHECK(test::leftover_processes().empty());
}
