#include "contest/vm/initramfs.h"

#include <fstream>
#include <map>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/vm/cpio_archive.h"

namespace contest {
namespace {

// What the guest needs of its kernel: virtio on PCI, the scratch disk
// (virtio_blk, ext4 and the crc32c its checksums ask the crypto API for),
// and 9p over virtio for the host's root and the results share.
const std::vector<std::string> kWantedModules = {"virtio_pci", "virtio_blk",   "crc32c_generic",
                                                 "ext4",       "9pnet_virtio", "9p"};

// Every init's start, as PID 1 under busybox's sh: its applets, /proc, /sys
// and /dev, and how it speaks on the console (the host reads it). Every step
// that fails then says so and ends the guest (init_start's `fail`).
const char* const kInitStart = R"INIT(#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "contest-guest: $*"; }
)INIT";

// --kernel's guest (InitMode::run_once), after kInitStart: the host's root
// and the results share, argv, and a reboot, not a power-off: QEMU runs
// with -no-reboot, so a reboot ends it, and a reboot needs no ACPI (the
// keyboard controller, a triple fault), which a small kernel (tinyconfig)
// may lack; the host stops one that does neither a few seconds after its
// last word.
const char* const kRunOnceBody =
    R"INIT(if grep -q contest.probe /proc/cmdline; then say up; say done; reboot -f; sleep 60; fi
while read -r m; do insmod "/modules/$m.ko" || fail "insmod $m"; done < /modules/order
opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts,ro" host /host || fail "mounting the host's root (9p)"
mount -t 9p -o "$opts" out /out || fail "mounting the results share (9p)"
mount -t ext4 /dev/vda /host/mnt || fail "mounting the scratch disk (ext4 on /dev/vda) on /mnt"
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mount -t cgroup2 cgroup2 /host/sys/fs/cgroup 2>/dev/null
mount -t debugfs debugfs /host/sys/kernel/debug 2>/dev/null
mkdir -p /host/dev/shm /host/dev/pts && mount -t tmpfs shm /host/dev/shm
mount -t devpts devpts /host/dev/pts 2>/dev/null
mount -t tmpfs run /host/run 2>/dev/null
[ -d /host/mnt/boot ] && mount --bind /host/mnt/boot /host/boot 2>/dev/null
mkdir -p /host/mnt/out && mount --bind /out /host/mnt/out || fail "binding the results share"
ip link set lo up 2>/dev/null
say up
# argv: the command, its words NUL-separated (no shell between).
xargs -0 chroot /host < /out/argv > /out/guest.log 2>&1
echo $? > /out/exit
sync
say done
reboot -f
sleep 60
)INIT";

// The machine of a --boot run (InitMode::boot_machine): booted again and
// again in one QEMU, which runs without -no-reboot (a reboot resets it into
// its -kernel, as firmware comes back to a machine's default entry), by
// kexec from its own contest. Each boot does what systemd would with the
// unit contest installs (under /mnt/root, the scratch disk's): runs its
// ExecStart; the first boot, before there is a unit, runs argv. A command
// that returns (the run done, or failed) powers the guest off, which ends
// QEMU; a failed step powers it off too, where a reboot would loop. The
// share's `beside`, when there is one, is a shell script run beside it in
// every boot, as a user at another shell would (--boot-abort while a turn
// runs), and given 30 s to end after it.
const char* const kBootMachineTail = R"INIT(say up
unit=/host/mnt/root/etc/systemd/system/contest-boot.service
env="PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/mnt TMPDIR=/mnt/tmp"
beside=
if [ -f /out/beside ]; then
    chroot /host /usr/bin/env -i $env sh /mnt/out/beside >> /out/guest.log 2>&1 &
    beside=$!
fi
if [ -f "$unit" ]; then
    eval "set -- $(sed -n 's/^ExecStart=//p' "$unit")"
    chroot /host /usr/bin/env -i $env "$@" 2>&1 | tee -a /out/guest.log
else
    xargs -0 chroot /host /usr/bin/env -i $env < /out/argv 2>&1 | tee -a /out/guest.log
fi
if [ -n "$beside" ]; then
    i=0
    while [ $i -lt 150 ] && kill -0 $beside 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
    kill $beside 2>/dev/null
fi
sync
say done
poweroff -f
sleep 60
)INIT";

// The machine of a --boot run with the host's own systemd as PID 1
// (InitMode::systemd_machine): the root systemd boots is an overlay whose
// lower layer is the host's root over 9p, read-only, and whose upper layer is
// on the scratch disk, so what is written under /etc (the unit contest
// installs, the machine id, the journal) lives as long as QEMU keeps the disk
// and comes back in every kexec'd kernel. The results share is mounted on
// /mnt/out before systemd starts (so a --results there is the same folder in
// every boot, with no mount unit to wait for), /tmp is a tmpfs, and the disk
// itself is moved to /mnt/disk, where systemd sees it among the mounts it
// takes down before each kexec. The share's units/ (plain unit files), when there is one, is
// installed and enabled for multi-user.target at every boot: how a test
// gives the machine its first command and its end. A step that fails powers
// off, which ends QEMU (a reboot would come back to the same failure).
const char* const kSystemdBody =
    R"INIT(while read -r m; do insmod "/modules/$m.ko" || fail "insmod $m"; done < /modules/order
opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts,ro" host /host || fail "mounting the host's root (9p)"
mount -t ext4 /dev/vda /disk || fail "mounting the scratch disk (ext4 on /dev/vda)"
mkdir -p /disk/upper /disk/work
mount -t overlay -o lowerdir=/host,upperdir=/disk/upper,workdir=/disk/work root /root ||
    fail "mounting the overlay of the host's root and the scratch disk"
mkdir -p /root/mnt/out /root/mnt/disk
# /tmp in memory, as Debian's tmp.mount has it: systemd-tmpfiles empties
# /tmp at every boot, which on the overlay is a whiteout for each of the
# host's files, over 9p, before the boot goes on.
mount -t tmpfs -o mode=1777,nosuid,nodev tmp /root/tmp || fail "mounting a tmpfs on /tmp"
mount -t 9p -o "$opts" out /root/mnt/out || fail "mounting the results share (9p) on /mnt/out"
# The host's marks of a container (a Docker host's /.dockerenv): systemd
# that finds one takes the guest for a container, reads its own argv in
# place of the kernel's command line and never kexecs.
rm -f /root/.dockerenv /root/run/.containerenv
# Its own machine id, not the host's: its journal and D-Bus are its own.
[ -e /disk/upper/etc/machine-id ] ||
    tr -d - < /proc/sys/kernel/random/uuid > /root/etc/machine-id || fail "writing a machine id"
units=/root/etc/systemd/system
for unit in /root/mnt/out/units/*; do
    [ -f "$unit" ] || continue
    name=${unit##*/}
    mkdir -p "$units/multi-user.target.wants" && cp "$unit" "$units/$name" &&
        ln -sf "/etc/systemd/system/$name" "$units/multi-user.target.wants/$name" ||
        fail "installing the unit $name"
done
sync
mount --move /disk /root/mnt/disk || fail "moving the scratch disk to /mnt/disk"
for d in dev proc sys; do mount --move /$d /root/$d || fail "moving /$d"; done
say up
exec switch_root /root /lib/systemd/systemd
)INIT";

bool is_static_elf(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(8192, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // A dynamic program names its loader (PT_INTERP) near its start.
    return head.starts_with(
               "\x7f"
               "ELF") &&
           head.find("ld-linux") == std::string::npos;
}

}  // namespace

std::filesystem::path static_busybox() {
    for (const char* path : {"/bin/busybox", "/usr/bin/busybox"})
        if (is_static_elf(path)) return path;
    throw EnvironmentError(
        "no static busybox for the guest's initramfs: install the Debian package busybox-static");
}

// kInitStart and the `fail` that ends the guest with `end` (reboot, or
// poweroff where a reboot would come back to the same failure).
std::string init_start(const std::string& end) {
    return std::string(kInitStart) + "fail() { say \"failed: $*\"; sync; " + end +
           " -f; sleep 60; }\n";
}

// The init of `mode`: one command and a reboot, or a --boot run's machine
// (its stand-in for systemd, or systemd itself).
std::string init_text(InitMode mode) {
    const std::string once = kRunOnceBody;
    switch (mode) {
        case InitMode::run_once:
            return init_start("reboot") + once;
        case InitMode::boot_machine:
            return init_start("poweroff") + once.substr(0, once.find("say up\n")) +
                   kBootMachineTail;
        case InitMode::systemd_machine:
            return init_start("poweroff") + kSystemdBody;
    }
    return init_start("reboot") + once;
}

Initramfs build_initramfs(const KernelImage& kernel, const std::filesystem::path& path,
                          InitMode mode) {
    Initramfs out;
    out.path = path;
    // Each module's bytes read (and decompressed) once, for its depends= and the archive.
    std::map<std::string, std::string> bytes;
    auto bytes_of = [&](const std::string& name) -> const std::string& {
        auto it = bytes.find(name);
        if (it == bytes.end())
            it = bytes.emplace(name, module_bytes(kernel.modules.at(name), path.parent_path()))
                     .first;
        return it->second;
    };
    std::vector<std::string> wanted = kWantedModules;
    // The overlay, the automounter systemd asks for at its start, and the
    // NIC of a guest given a network (GuestBoot::ssh_forward_port: a host an
    // Ansible controller reaches over SSH). Loaded before systemd starts:
    // the host's /lib/modules is another kernel's, so udev finds none.
    if (mode == InitMode::systemd_machine)
        wanted.insert(wanted.end(), {"overlay", "autofs4", "virtio_net"});
    out.modules = modules_to_load(kernel, wanted, bytes_of, &out.assumed_builtin);
    CpioArchive cpio;
    for (const char* dir : {"bin", "dev", "proc", "sys", "host", "out", "modules", "disk", "root"})
        cpio.add_dir(dir);
    // The kernel opens /dev/console for init's stdio before devtmpfs is up.
    cpio.add_char_device("dev/console", 5, 1);
    cpio.add_file_from("bin/busybox", static_busybox(), 0755);
    cpio.add_file("init", init_text(mode), 0755);
    std::string order;
    for (const auto& name : out.modules) {
        cpio.add_file("modules/" + name + ".ko", bytes_of(name));
        order += name + "\n";
    }
    cpio.add_file("modules/order", order);
    write_file_atomically(path, cpio.finish());
    return out;
}

}  // namespace contest
