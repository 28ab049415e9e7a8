#pragma once
// One QEMU guest, booted and watched: its console goes to a log, it must say
// it is up within the boot timeout and that it is done within the whole
// timeout (then it reboots, which ends QEMU under -no-reboot, or is stopped a
// short grace later), and it is stopped (SIGTERM, then SIGKILL, reaped) on every way out: a
// timeout, Ctrl-C or SIGTERM of contest (Interrupted), an error. QEMU is a
// child in its own process group with the parent-death signal, inside the
// run's containment, so even a SIGKILL of contest takes it down.
#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contest/sys/enum_names.h"
#include "contest/sys/process.h"

namespace contest {

enum class Accel { kvm, tcg };

// QEMU's -accel words, which --vm-accel takes and the result file records.
inline constexpr std::array<EnumName<Accel>, 2> kAccelNames{{
    {Accel::kvm, "kvm"},
    {Accel::tcg, "tcg"},
}};

// The table's word (a literal, so NUL-terminated).
inline const char* accel_name(Accel accel) {
    return name_in(kAccelNames, accel).data();
}

// The guest's shape, the same for every kernel of a run.
struct GuestShape {
    unsigned cpus = 2;
    unsigned memory_mib = 1024;
};

// `contest run --kernel`'s --vm-* options: the same for every kernel.
struct VmOptions {
    std::string accel = "auto";  // kvm | tcg | auto (a probe boot decides)
    GuestShape shape;
    double boot_timeout_s = 120;  // until the guest's init is up
    // A guest's life, start to its init's last word, for each time it
    // takes its round's loads: with --runs-per-boot N, N times this.
    double timeout_s = 3600;
    std::string append;        // more kernel parameters for every guest
    unsigned disk_mib = 2048;  // the scratch disk
    // --duet: each round's guests at once, each on host CPUs of its own
    // (contest/run/places/guests/duet_cpus.h), their runs started together (start_barrier.h).
    bool duet = false;
    // --runs-per-boot: how many times a guest, once booted, takes its
    // round's loads before it shuts down, each time a run of its own
    // (RunRecord::boot, run_in_boot). Unset: once, as before the option.
    std::optional<unsigned> runs_per_boot;
    unsigned runs_in_each_boot() const { return runs_per_boot.value_or(1); }
    // The bound on a guest's whole life: --vm-timeout for each time it
    // takes the loads, so that --runs-per-boot N does not need it raised.
    double life_bound_s() const { return timeout_s * runs_in_each_boot(); }
    // How a guest killed at that bound says which option set it.
    std::string life_bound_words() const;
};

struct GuestBoot {
    std::filesystem::path kernel, initramfs;
    std::filesystem::path scratch_disk;  // raw ext4 image on virtio; empty: none
    std::filesystem::path out_dir;       // the writable 9p share "out"; empty: none
    std::filesystem::path console_log;   // the guest's serial console
    Accel accel = Accel::tcg;
    GuestShape shape;
    std::string append;  // more kernel parameters
    double boot_timeout_s = 120;
    std::optional<double> timeout_s;             // from start to its init's last word
    std::string timeout_words = "--vm-timeout";  // the option(s) that set it, for its failure
    // From its init's last word (done, or failed) to QEMU stopped when the
    // guest does not end itself: its results are on the share by then.
    double end_grace_s = 5;
    // QEMU without -no-reboot: a reboot resets the guest into its -kernel
    // (a --boot run's machine, which ends by powering off).
    bool reboot_resets = false;
    // A network (QEMU's user network on a virtio NIC; the guest is
    // 10.0.2.15 behind it) whose TCP port 22 is reachable from this machine
    // at 127.0.0.1:PORT: an SSH server in the guest is then a host an
    // Ansible controller can reach. None: the guest has no network.
    std::optional<unsigned> ssh_forward_port;
    // The host CPUs QEMU runs on (a duet's guest: contest/run/places/guests/duet_cpus.h):
    // pinned before its exec, so every thread it starts, each vCPU's among
    // them, inherits the set. Empty: wherever the host's scheduler puts it.
    std::vector<int> host_cpus;
};

struct GuestOutcome {
    bool came_up = false;          // its init said so
    bool finished = false;         // its init said its command was done
    std::string failure;           // why not, when not finished
    bool timed_out = false;        // killed at a timeout
    double up_s = 0, total_s = 0;  // start to up; start to QEMU's end
};

// "qemu-system-x86_64" found on PATH; EnvironmentError saying to install
// qemu-system-x86 otherwise.
std::filesystem::path qemu_binary();

// QEMU's command line for boot.
std::vector<std::string> qemu_argv(const GuestBoot& boot);

// One guest started and watched, step by step, so that a caller can watch
// several at once (a duet's guests) and act between the steps; run_guest
// is the loop over one. QEMU is stopped (SIGTERM, then SIGKILL, reaped) by
// finish() or, on any other way out, by the destructor.
class RunningGuest {
  public:
    // Starts QEMU for boot (pinned to boot.host_cpus when given).
    explicit RunningGuest(const GuestBoot& boot);
    ~RunningGuest();
    RunningGuest(const RunningGuest&) = delete;
    RunningGuest& operator=(const RunningGuest&) = delete;

    // One look: QEMU reaped if it ended, its console read, the timeouts
    // and the end grace checked. False once the guest is over (QEMU ended,
    // or is to be stopped); then finish() says how it went.
    bool step();
    // QEMU's pid (its process group's too), while it runs.
    pid_t pid() const { return guard_.pgid(); }
    bool up() const { return out_.came_up; }
    double elapsed_s() const;
    // Stops QEMU if it still runs and says how the guest went.
    GuestOutcome finish();

  private:
    // QEMU stopped, if it still runs (its group, then reaped or kept to reap later).
    void stop();
    // The guest marked over; false, step()'s answer from then on.
    bool over();

    GuestBoot boot_;
    std::chrono::steady_clock::time_point started_;
    GroupGuard guard_;
    std::string console_;
    int status_ = 0;
    bool reaped_ = false;  // QEMU ended by itself, with status_
    bool over_ = false;
    std::optional<double> said_end_at_;  // when its init said it was done, or failed
    GuestOutcome out_;
};

// Boots and waits (tick is called about every 200 ms with the seconds since
// start and whether the guest is up); throws Interrupted on Ctrl-C, with QEMU
// stopped.
GuestOutcome run_guest(const GuestBoot& boot,
                       const std::function<void(double seconds, bool up)>& tick = {});

// Why accel does not run a guest here (nullopt: it does): /dev/kvm that
// cannot be opened, or a probe boot (contest.probe) of kernel with initramfs
// that does not reach its init within timeout_s.
std::optional<std::string> accel_problem(Accel accel, const std::filesystem::path& kernel,
                                         const std::filesystem::path& initramfs,
                                         const std::filesystem::path& console_log, double timeout_s,
                                         double* up_s = nullptr);

// The last lines of a console log, joined with " | " for one-line reasons.
std::string console_tail(const std::filesystem::path& log, int lines);

}  // namespace contest
