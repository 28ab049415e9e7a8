#pragma once
// The share of a systemd guest (InitMode::systemd_machine) that runs contest
// track's unit, as a lab's machine would once the package is installed and
// the robot's clone made: what tests/test_track_unit.cpp's guest and the
// fleet demo's track host (tests/test_fleet_guests.cpp) share.
#include <filesystem>
#include <string>

#include "kbuild_stand_in.h"
#include "stand_in_qemu.h"
#include "test_helpers.h"

namespace contest::test {

// Puts into `share` (the guest's /mnt/out): this build's `cmake --install`
// staged (DESTDIR: make install's paths, the unit and timer among them),
// an upstream of the kbuild stand-in tree (a build in a blink) at its
// first commit, tagged t0, a stand-in QEMU (each point's guest contest run
// with no nested emulation), and track-machine.sh, which the guest runs as
// root: the staged files copied onto its root, the stand-in first on a
// unit's PATH (/usr/local/sbin), the upstream copied to /srv/upstream and
// cloned by a plain `git clone` into /srv/contest/linux, and then a commit
// upstream that does not build, tagged t1: only a fetch brings it.
inline void put_track_machine(const std::filesystem::path& share) {
    namespace fs = std::filesystem;
    const std::string installed =
        shell_output("DESTDIR='" + (share / "stage").string() + "' cmake --install '" +
                     fs::path(CONTEST_BINARY).parent_path().string() + "' 2>&1 && echo installed");
    INFO(installed);
    REQUIRE(installed.ends_with("installed"));
    StandIn tree;
    sh(tree.tree, "git tag t0 " + tree.base + " && git reset -q --hard " + tree.base);
    sh(share, "git clone -q --bare '" + tree.tree.string() +
                  "' upstream.git && git clone -q upstream.git upstream && rm -rf upstream.git");
    put_stand_in_qemu(share / "bin", "/mnt/out/booted", "none", 0);
    put_file(share / "track-machine.sh",
             "set -ex\n"
             "cp -a /mnt/out/stage/. /\n"
             "install -m 755 /mnt/out/bin/qemu-system-x86_64 /usr/local/sbin/\n"
             "mkdir -p /srv/contest /etc/contest/track\n"
             "cp -a /mnt/out/upstream /srv/upstream\n"
             "chown -R root:root /srv/upstream\n"
             "git clone -q /srv/upstream /srv/contest/linux\n"
             "cd /srv/upstream\n"
             "echo 1 > fail\n"
             "git add fail\n"
             "git -c user.name=t -c user.email=t@t commit -qm 'does not build'\n"
             "git tag t1\n");
}

}  // namespace contest::test
