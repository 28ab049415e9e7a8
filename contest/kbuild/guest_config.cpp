#include "contest/kbuild/guest_config.h"

namespace contest::kbuild {

const std::vector<ConfigNeed>& guest_config_needs() {
    // clang-format off
    static const std::vector<ConfigNeed> needs = {
        {"CONFIG_64BIT", "y", "the host's root is run in the guest: its programs, contest's copy and busybox are x86-64"},
        {"CONFIG_SMP", "y", "the guests' --vm-cpus (2 by default): the loads and the compile share CPUs as on the host"},
        {"CONFIG_PRINTK", "y", "the kernel's messages on the console, which a guest that fails is reported with"},
        {"CONFIG_TTY", "y", "the serial console QEMU's -serial stdio is (console=ttyS0)"},
        {"CONFIG_SERIAL_8250", "y", "the serial console: the PC's UART that QEMU emulates"},
        {"CONFIG_SERIAL_8250_CONSOLE", "y", "the serial console: /init's 'contest-guest: up/done' lines, which the host watches"},
        {"CONFIG_BLK_DEV_INITRD", "y", "contest's initramfs (-initrd), an uncompressed cpio archive"},
        {"CONFIG_BINFMT_ELF", "y", "busybox and the host's programs"},
        {"CONFIG_BINFMT_SCRIPT", "y", "/init is a busybox sh script; the host's scripts run as they do on the host"},
        {"CONFIG_PROC_FS", "y", "/init mounts /proc; contest reads /proc/<pid>/stat, /proc/stat, /proc/vmstat"},
        {"CONFIG_PROC_SYSCTL", "y", "contest drops caches through /proc/sys/vm/drop_caches and reads /proc/sys"},
        {"CONFIG_SYSFS", "y", "/init mounts /sys; the cgroup and block-device facts are read there"},
        {"CONFIG_DEVTMPFS", "y", "/init mounts /dev as devtmpfs (the guest has no udev)"},
        {"CONFIG_TMPFS", "y", "/init mounts /dev/shm and /run as tmpfs"},
        {"CONFIG_SHMEM", "y", "the loads' and probes' shared blocks (MAP_SHARED anonymous memory) and tmpfs"},
        {"CONFIG_UNIX98_PTYS", "y", "/init mounts /dev/pts"},
        {"CONFIG_MULTIUSER", "y", "the host's programs change users and groups (chroot, setgid); without it they fail"},
        {"CONFIG_FILE_LOCKING", "y", "contest's locks (flock) on its workdir and results"},
        {"CONFIG_FUTEX", "y", "threads: glibc's locks and contest's threads"},
        {"CONFIG_POSIX_TIMERS", "y", "the latency probes' timers (timer_create, clock_nanosleep)"},
        {"CONFIG_HIGH_RES_TIMERS", "y", "the latency probes' wake-ups, timed to the microsecond rather than the tick"},
        {"CONFIG_VM_EVENT_COUNTERS", "y", "/proc/vmstat's counters, which contest records beside every run"},
        {"CONFIG_PCI", "y", "QEMU's virtio devices are on PCI (virtio_pci)"},
        {"CONFIG_VIRTIO_MENU", "y", "the menu the virtio drivers are in"},
        {"CONFIG_VIRTIO_PCI", "y", "the virtio devices: the scratch disk and the 9p shares"},
        {"CONFIG_BLOCK", "y", "the scratch disk"},
        {"CONFIG_VIRTIO_BLK", "y", "the scratch disk (-drive if=virtio, /dev/vda)"},
        {"CONFIG_EXT4_FS", "y", "the scratch disk is ext4 (mkfs.ext4 -d), mounted on /mnt"},
        {"CONFIG_NET", "y", "9p over virtio is a network transport"},
        {"CONFIG_UNIX", "y", "the host's programs' local sockets"},
        {"CONFIG_NET_9P", "y", "the host's root and the results share (9p)"},
        {"CONFIG_NET_9P_VIRTIO", "y", "9p's virtio transport (trans=virtio)"},
        {"CONFIG_NETWORK_FILESYSTEMS", "y", "the menu 9p's file system is in"},
        {"CONFIG_9P_FS", "y", "/init mounts the host's root read-only and the results share over 9p"},
        {"CONFIG_CGROUPS", "y", "/init mounts cgroup2; contest holds every run's processes in a cgroup leaf (cgroup.kill)"},
        {"CONFIG_PSI", "y", "contest's pressure measures (/proc/pressure/*)"},
        {"CONFIG_PERF_EVENTS", "y", "--perf's counters on the workload"},
        {"CONFIG_HYPERVISOR_GUEST", "y", "the KVM guest's paravirtual clock and CPU, under KVM"},
        {"CONFIG_PARAVIRT", "y", "the KVM guest's paravirtual clock and CPU, under KVM"},
        {"CONFIG_KVM_GUEST", "y", "the KVM guest's paravirtual clock and CPU, under KVM"},
    };
    // clang-format on
    return needs;
}

std::string guest_config_fragment() {
    std::string text = "# contest's guests' needs (contest/kbuild/guest_config.cpp)\n";
    for (const auto& need : guest_config_needs())
        text += std::string("# ") + need.who + "\n" + need.option + "=" + need.value + "\n";
    return text;
}

std::vector<std::string> unmet_guest_needs(const std::map<std::string, std::string>& config) {
    std::vector<std::string> unmet;
    for (const auto& need : guest_config_needs()) {
        const auto it = config.find(need.option);
        if (it == config.end() || it->second != need.value)
            unmet.push_back(std::string(need.option) + "=" + need.value + " (" + need.who + ")");
    }
    return unmet;
}

}  // namespace contest::kbuild
