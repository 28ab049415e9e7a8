#pragma once
// What a --boot start checks of the machine before its first reboot, beyond
// each kernel's own (boot_check): what every later step needs, since a step
// that cannot run strands the machine in the first label's kernel with the
// run armed. And how it makes results/.boot, the folder root runs contest's
// copy from at every boot. docs/boot.md.
#include <sys/types.h>

#include <filesystem>

#include "contest/sys/unique_fd.h"

namespace contest {

// The places a --boot run's steps use, as the start resolved them
// (absolute; results with its links resolved).
struct BootPlaces {
    std::filesystem::path results;  // the results folder: the state, .boot/
    std::filesystem::path workdir;
    std::filesystem::path unit_root;  // where the unit goes ("/": the machine's)
};

// UsageError when a place cannot be named in the unit (unit_path_problem).
void check_boot_place_names(const BootPlaces& places);

// EnvironmentError, one line, for the first place a later step could not
// use, or that someone else could change: the results folder (or one
// above it) writable by anyone but root, under /tmp, on a tmpfs, ramfs or
// a noexec mount; the workdir under /tmp or on a tmpfs or ramfs; the unit's folders open to others;
// with the unit going into the machine's own root, no systemd running to start it. Nothing is made.
void check_boot_places(const BootPlaces& places);

// UsageError, one line, when the workdir could be changed by anyone but
// root: it, or a folder above it, another user's or writable by its group
// or others (a sticky step aside), and so its kbuild/ (the trees the
// kernels are built in, the cache whose builds root installs and boots)
// and the folders each step runs the loads in. Its links resolved (a
// link is refused).
void check_boot_workdir(const std::filesystem::path& workdir);

// The results folder and any folder of it missing, made 0755 whatever the
// umask (a group-writable one would be refused at the next boot), then
// checked again as check_boot_places does.
void make_results_folder(const std::filesystem::path& results);

// results/.boot, made (or kept, when an earlier run left it and it is this
// user's) root's alone, 0700, and opened without following a link.
UniqueFd open_copy_folder(const std::filesystem::path& results);

// Copies from into name under the folder dir (shown as `to` in errors):
// whatever was at name (a link too) is removed first and a new file made,
// never following a link. EnvironmentError when it cannot.
void copy_into(const UniqueFd& dir, const char* name, const std::filesystem::path& from,
               const std::filesystem::path& to, mode_t mode);

}  // namespace contest
