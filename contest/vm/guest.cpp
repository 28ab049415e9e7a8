#include "contest/vm/guest.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "contest/sys/cpu_affinity.h"
#include "contest/sys/errors.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/number_text.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"
#include "contest/sys/workdir.h"
#include "contest/vm/initramfs.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

// The console's text from offset on, appended to seen.
void read_more(const std::filesystem::path& log, std::string& seen) {
    std::ifstream in(log, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(seen.size()));
    std::ostringstream more;
    more << in.rdbuf();
    seen += more.str();
}

// QEMU processes killed but not yet reaped: one whose KVM vCPU hung (a PVM
// host) can stay in the kernel past stop_group's wait and only then exit.
// Reaped at the next guest's start, so no zombie waits for contest's end.
std::vector<pid_t>& late_exits() {
    static std::vector<pid_t> pids;
    return pids;
}

// Whether pid is a child of ours still running; reaped when it has ended.
bool still_running(pid_t pid) {
    try {
        return !reap_if_exited(pid).has_value();
    } catch (const EnvironmentError&) {
        return false;  // no child of ours any more (stop_group reaped it)
    }
}

void reap_late_exits() {
    std::erase_if(late_exits(), [](pid_t pid) { return !still_running(pid); });
}

// A path as one value of QEMU's option lists (-drive, -virtfs): absolute, so
// that no "proto:" prefix names a protocol of the block layer, and with every
// comma doubled, QEMU's escape, so that a comma in it never starts another
// option (a workdir "/srv/a,file=/dev/sda," made the host's disk the guest's).
std::string option_list_path(const std::filesystem::path& path) {
    std::string out;
    for (const char c : std::filesystem::absolute(path).string()) {
        out += c;
        if (c == ',') out += ',';
    }
    return out;
}

}  // namespace

std::filesystem::path qemu_binary() {
    if (auto found = find_on_path("qemu-system-x86_64")) return *found;
    throw EnvironmentError(
        "qemu-system-x86_64 not found: install the Debian package qemu-system-x86");
}

std::vector<std::string> qemu_argv(const GuestBoot& b) {
    std::vector<std::string> argv = {
        qemu_binary().string(), "-nodefaults", "-no-user-config", "-no-reboot", "-display", "none",
        "-monitor", "none", "-serial", "stdio", "-accel", accel_name(b.accel),
        // TCG's default CPU model lacks much a distribution kernel uses.
        "-cpu", b.accel == Accel::kvm ? "host" : "max", "-smp", std::to_string(b.shape.cpus), "-m",
        // -kernel and -initrd take their path as it is: no option list.
        std::to_string(b.shape.memory_mib), "-kernel", b.kernel.string(), "-initrd",
        b.initramfs.string(), "-append",
        "console=ttyS0 panic=-1 rdinit=/init" + (b.append.empty() ? "" : " " + b.append)};
    if (b.reboot_resets) std::erase(argv, std::string("-no-reboot"));
    if (!b.scratch_disk.empty()) {
        argv.push_back("-drive");
        argv.push_back("file=" + option_list_path(b.scratch_disk) + ",format=raw,if=virtio");
    }
    if (!b.out_dir.empty()) {
        argv.push_back("-virtfs");
        argv.push_back(
            "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap");
        argv.push_back("-virtfs");
        // The guest's root writes here: mapped-file keeps the owners, modes,
        // links, devices and FIFOs it makes as metadata beside plain files
        // (in .virtfs_metadata/), so nothing it plants is a link, a device
        // or a setuid file on the host; unlike mapped-xattr it needs no
        // user xattrs of the workdir's filesystem (tmpfs, NFS).
        argv.push_back("local,path=" + option_list_path(b.out_dir) +
                       ",mount_tag=out,security_model=mapped-file,multidevs=remap");
    }
    if (b.ssh_forward_port) {
        // On the loopback only: the guest's SSH server is this machine's
        // to reach, not the network's.
        argv.push_back("-netdev");
        argv.push_back("user,id=n0,hostfwd=tcp:127.0.0.1:" + std::to_string(*b.ssh_forward_port) +
                       "-:22");
        argv.push_back("-device");
        argv.push_back("virtio-net-pci,netdev=n0");
    }
    return argv;
}

namespace {

// QEMU started for boot, pinned to its host CPUs before its exec when it
// has some: held at the exec gate until the parent has pinned it, so its
// first instruction, and every thread it starts, run on them.
pid_t start_qemu(const GuestBoot& boot) {
    SpawnOptions so;
    so.log_to(boot.console_log);
    if (boot.host_cpus.empty()) return spawn(qemu_argv(boot), so);
    auto gate = std::make_shared<ExecGate>();
    std::string refused;
    so.before_exec = [gate] { gate->wait_in_child(); };
    so.after_fork = [&](pid_t child) {
        try {
            pin_to_cpus(child, boot.host_cpus);
        } catch (const EnvironmentError& e) {
            refused = e.what();
            // Never on other CPUs than asked: it dies at the gate.
            ::kill(child, SIGKILL);
        }
        gate->release();
    };
    GroupGuard started(spawn(qemu_argv(boot), so));
    if (!refused.empty()) throw EnvironmentError("starting a guest: " + refused);
    return started.release();
}

}  // namespace

RunningGuest::RunningGuest(const GuestBoot& boot) : boot_(boot) {
    reap_late_exits();
    create_file_no_follow(boot_.console_log);
    started_ = Clock::now();
    guard_ = GroupGuard(start_qemu(boot_));
}

RunningGuest::~RunningGuest() {
    stop();
}

void RunningGuest::stop() {
    if (guard_.pgid() <= 0) return;
    const pid_t pid = guard_.pgid();
    guard_.stop();
    if (still_running(pid)) late_exits().push_back(pid);
}

bool RunningGuest::over() {
    over_ = true;
    return false;
}

double RunningGuest::elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - started_).count();
}

bool RunningGuest::step() {
    if (over_) return false;
    const std::optional<int> got = reap_if_exited(guard_.pgid());
    read_more(boot_.console_log, console_);
    if (!out_.came_up && console_.find(kGuestUpLine) != std::string::npos) {
        out_.came_up = true;
        out_.up_s = elapsed_s();
    }
    if (!said_end_at_ && (console_.find(kGuestDoneLine) != std::string::npos ||
                          console_.find(kGuestFailedLine) != std::string::npos))
        said_end_at_ = elapsed_s();
    if (got) {
        status_ = *got;
        reaped_ = true;
        guard_.release();
        return over();
    }
    const double now = elapsed_s();
    // Its results are on the share (the init syncs before it says so):
    // a kernel that can neither reboot nor power off (no ACPI, "System
    // halted") would otherwise hold the run until --vm-timeout.
    if (said_end_at_ && now > *said_end_at_ + boot_.end_grace_s) return over();
    if (!out_.came_up && now > boot_.boot_timeout_s) {
        out_.failure = "the guest did not come up within " + six_digits(boot_.boot_timeout_s) +
                       " s (--vm-boot-timeout), killed";
        out_.timed_out = true;
        return over();
    }
    if (boot_.timeout_s && now > *boot_.timeout_s) {
        out_.failure = "the guest was still running after " + six_digits(*boot_.timeout_s) +
                       " s (" + boot_.timeout_words + "), killed";
        out_.timed_out = true;
        return over();
    }
    return true;
}

GuestOutcome RunningGuest::finish() {
    over_ = true;
    stop();
    GuestOutcome out = out_;
    out.total_s = elapsed_s();
    if (!out.failure.empty()) return out;
    if (const auto at = console_.rfind(kGuestFailedLine); at != std::string::npos) {
        const auto from = at + std::strlen(kGuestFailedLine);
        out.failure =
            "the guest's init failed: " + console_.substr(from, console_.find('\n', from) - from);
    } else if (console_.find(kGuestDoneLine) != std::string::npos) {
        out.finished = true;
    } else {
        out.failure = std::string("QEMU ended (") +
                      (reaped_ ? describe_wait_status(status_) : "?") + ") before the guest " +
                      (out.came_up ? "finished its runs" : "came up");
    }
    return out;
}

GuestOutcome run_guest(const GuestBoot& boot,
                       const std::function<void(double seconds, bool up)>& tick) {
    RunningGuest guest(boot);
    while (guest.step()) {
        if (tick) tick(guest.elapsed_s(), guest.up());
        interruptible_sleep(0.2);
    }
    return guest.finish();
}

std::optional<std::string> accel_problem(Accel accel, const std::filesystem::path& kernel,
                                         const std::filesystem::path& initramfs,
                                         const std::filesystem::path& console_log, double timeout_s,
                                         double* up_s) {
    if (accel == Accel::kvm) {
        UniqueFd kvm(::open("/dev/kvm", O_RDWR | O_CLOEXEC));
        if (kvm.get() < 0) return std::string("cannot open /dev/kvm: ") + std::strerror(errno);
    }
    GuestBoot probe;
    probe.kernel = kernel;
    probe.initramfs = initramfs;
    probe.console_log = console_log;
    probe.accel = accel;
    probe.shape = {1, 256};
    probe.append = "contest.probe";
    probe.boot_timeout_s = timeout_s;
    probe.timeout_s = timeout_s;
    const GuestOutcome o = run_guest(probe);
    if (up_s) *up_s = o.up_s;
    if (o.came_up) return std::nullopt;
    std::string why = o.timed_out
                          ? std::string("a probe boot under -accel ") + accel_name(accel) +
                                " did not reach its init within " + six_digits(timeout_s) + " s"
                      : o.failure.empty() ? "the probe guest did not come up"
                                          : o.failure;
    const std::string tail = console_tail(console_log, 2);
    return why + (tail.empty() ? " (no console output)" : "; console: " + tail);
}

std::string console_tail(const std::filesystem::path& log, int lines) {
    std::istringstream in(tail_of_file(log, lines));
    std::string out, line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // QEMU saying it was stopped: the stop is said already.
        if (line.find("terminating on signal") != std::string::npos) continue;
        out += (out.empty() ? "" : " | ") + printable(line);
    }
    return out;
}

std::string VmOptions::life_bound_words() const {
    const unsigned n = runs_in_each_boot();
    if (n == 1) return "--vm-timeout";
    return "--vm-timeout " + six_digits(timeout_s) + " s x --runs-per-boot " + std::to_string(n);
}

}  // namespace contest
