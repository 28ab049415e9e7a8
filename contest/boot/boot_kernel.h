#pragma once
// How contest boots the next kernel of a --boot run, and checks before the
// first reboot that it can: kexec (the image and initramfs loaded with
// kexec_file_load(2), or kexec-tools where the syscall is refused, then a
// clean reboot into it), or a one-shot entry of grub (grub-reboot) or
// systemd-boot (bootctl set-oneshot) and a reboot through the firmware.
// The default entry is never changed: a kernel that does not come up is
// left, by a watchdog, panic=N or the user's reset, for the machine's own.
#include <optional>
#include <string>

#include "contest/boot/boot_state.h"

namespace contest {

// The running kernel: its release and /proc/cmdline.
struct RunningKernel {
    std::string release, cmdline, boot_id;
    double up_s = 0;
    bool stand_in = false;  // read from kTestRunningKernelVariable's folder
};
RunningKernel running_kernel();

// For tests only: this environment variable names a folder whose files
// osrelease, cmdline, boot_id and uptime stand for /proc's, so that a test
// can say which kernel a --boot step finds itself in (a boot it made up);
// such a boot is not waited on to settle. Not an option, in no help text:
// nobody running a benchmark sets it.
inline constexpr const char* kTestRunningKernelVariable = "CONTEST_TEST_RUNNING_KERNEL";

// Why the running kernel is not the label's ("" when it is): kexec's
// release and whole command line; an entry's release and, when known, its
// command line (without the loader's BOOT_IMAGE= and initrd= words).
std::string not_the_labels_kernel(BootMethod method, const BootLabel& label,
                                  const RunningKernel& k);

// /proc/cmdline without the words a boot loader adds for the image it
// loaded (BOOT_IMAGE=, initrd=): the base of every label's command line.
std::string base_cmdline(const std::string& proc_cmdline);

// A label's command line: base, then the label's own words, then panic=10
// unless a panic= is among them (Debian's kernels hang on a panic
// otherwise, and a hung machine does not come back by itself).
std::string label_cmdline(const std::string& base, const std::string& append);

// Why the label's kernel cannot be booted by `method` ("" when it can):
// kexec loads and unloads it (a dry load); grub and systemd-boot find the
// entry under root (boot_entry.h) and record its kernel in the label (its
// image, release and command line, which each boot is checked against).
std::string boot_check(BootMethod method, BootLabel& label, const std::string& root);

// Boots the label's kernel: kexec loads it and reboots into it (systemctl
// kexec under systemd, else sync and reboot(2)); grub and systemd-boot set
// the one-shot entry and run `reboot`. Returns only when the reboot was
// refused, or (a stand-in `reboot` in tests) did not happen, with why
// ("" when the reboot was asked and returned). Throws Interrupted only
// before the reboot is asked (the caller then disarms what was armed); one
// while it is asked is the machine going down, and returns "".
std::string boot_label(BootMethod method, const BootLabel& label);

// Back to the machine's own kernel: a plain reboot, into its default entry
// (systemctl reboot under systemd; else `reboot` for grub and systemd-boot,
// reboot(2) after a sync for kexec, as a machine without systemd has it).
// A kernel left loaded for kexec is unloaded first: the reboot must go
// through the firmware. Interrupted as boot_label.
std::string reboot_default(BootMethod method);

// The one-shot entry grub-reboot or bootctl set, cleared (--boot-abort),
// with why when that failed ("" when done, and for kexec).
std::string clear_one_shot(BootMethod method);

// A kernel loaded for kexec and not booted, unloaded (--boot-abort).
void kexec_unload();

// KERNEL of --boot LABEL=KERNEL for kexec, into the label's image, initrd
// and release: IMAGE:INITRD, an image (its initrd /boot/initrd.img-<release>
// when there is one) or a release (/boot/vmlinuz-<release>). UsageError
// naming it when there is no such file, or it is no whole bzImage.
void resolve_kexec_kernel(BootLabel& label);

// Whether the running kernel is the one the run started from.
bool in_start_kernel(const BootState& state, const RunningKernel& k);

// What the previous boot left of why it ended: its kernel log's tail
// (journalctl -b -1 -k) or what pstore kept.
std::string previous_boot_tail();

// Nothing left that would boot a label's kernel at the next reboot: a
// kernel loaded for kexec unloaded, a one-shot entry cleared.
void disarm_next_boot(const BootState& state);

}  // namespace contest
