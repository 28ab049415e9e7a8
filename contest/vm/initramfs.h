#pragma once
// The guest's initramfs, made by contest: a static busybox, the kernel's own
// modules for virtio, 9p and ext4 (decompressed; insmod in dependency order:
// the Debian packages carry no modules.dep), and an /init that mounts the host's root
// read-only over 9p, the scratch disk on its /mnt (the host's /tmp stays
// visible, read-only: paths the user gave there work) and the results share,
// then runs the host's command (argv on the results share, NUL-separated
// words) in a chroot of the host's root and reboots (which ends QEMU under
// -no-reboot). With contest.probe on the kernel's command line it only says
// it is up and reboots (the accelerator probe).
#include <filesystem>
#include <string>
#include <vector>

#include "contest/vm/kernel_image.h"

namespace contest {

// The console lines /init writes, which the host watches for.
inline constexpr const char* kGuestUpLine = "contest-guest: up";
inline constexpr const char* kGuestDoneLine = "contest-guest: done";
inline constexpr const char* kGuestFailedLine = "contest-guest: failed: ";

struct Initramfs {
    std::filesystem::path path;
    std::vector<std::string> modules;          // insmodded, in order
    std::vector<std::string> assumed_builtin;  // needed, not found as modules
};

// /bin/busybox when it is a static one (busybox-static); EnvironmentError
// saying what to install otherwise.
std::filesystem::path static_busybox();

// What /init does: run_once, argv and a reboot (--kernel's guests);
// boot_machine, the machine of a --boot run's tests, booted again and again
// in one QEMU, its init standing in for systemd; systemd_machine, the same
// machine with the host's own systemd as PID 1 on an overlay of the host's
// root, the results share on its /mnt/out and the scratch disk (the
// overlay's upper layer in its upper/) on /mnt/disk (initramfs.cpp says how).
enum class InitMode { run_once, boot_machine, systemd_machine };

// Writes the initramfs for kernel to `path` (atomically).
Initramfs build_initramfs(const KernelImage& kernel, const std::filesystem::path& path,
                          InitMode mode = InitMode::run_once);

}  // namespace contest
