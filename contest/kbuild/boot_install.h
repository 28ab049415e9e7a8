#pragma once
// A kernel contest built for --boot, made bootable on this machine: its
// modules (staged by `make modules_install INSTALL_MOD_PATH=...` into the
// cache) installed under ROOT/lib/modules/<release>/, and an initramfs made
// for it with the machine's own tool. Only ever for a release contest made:
// its folder carries contest's mark, a release folder without it is refused
// and never touched, and the removal removes only a marked one. The
// release is unique to the build (LOCALVERSION from the cache's key), so
// two labels never share a folder.
#include <filesystem>
#include <string>

namespace contest::kbuild {

// The file in ROOT/lib/modules/<release>/ that says contest made it; it
// holds the cache key of the build.
inline constexpr const char* kContestMadeMark = ".contest-made";

// LOCALVERSION for the build keyed `key`: "-contest-" and the key's first 8 digits.
std::string boot_localversion(const std::string& key);

// ROOT/lib/modules/<release>/ from `staged` (the staged modules' folder of
// that release, or "" when the kernel has no modules: an empty folder, which
// the initramfs tools still want), marked with key. Nothing is done when it
// is there with contest's mark for the same key (false returned; true when
// the folder was made); EnvironmentError when it is there without
// contest's mark (contest does not overwrite it).
bool install_release(const std::filesystem::path& staged, const std::string& release,
                     const std::string& key, const std::filesystem::path& root = "/");

// Whether ROOT/lib/modules/<release>/ carries contest's mark.
bool contest_made(const std::string& release, const std::filesystem::path& root = "/");

// Removes ROOT/lib/modules/<release>/ when contest made it; false (and
// nothing removed) when it is absent or not contest's.
bool remove_release(const std::string& release, const std::filesystem::path& root = "/");

// What of this machine decides the initramfs its tool makes for a release
// (besides the release's modules, which contest's key decides): the tool
// and its configuration, hooks and scripts (under root: etc/initramfs-tools/,
// usr/share/initramfs-tools/, etc/dracut.conf, etc/dracut.conf.d/,
// usr/lib/dracut/), their paths and bytes, as SHA-256 in hex. An initramfs
// made before is reused only while this is the same.
std::string initramfs_setup_sha256(const std::filesystem::path& root = "/");

// The initramfs's name in a cache entry: "initrd.img-<release>-" and the
// set-up's hash's first 12 digits.
std::string initramfs_name(const std::string& release, const std::string& setup_sha256);

// An initramfs for release at `out`, with the machine's tool: mkinitramfs
// (initramfs-tools), else dracut. Refused (EnvironmentError) for a release
// contest did not make; StepFailed when the tool fails, its log at
// out + ".log".
void make_initramfs(const std::string& release, const std::filesystem::path& out);

}  // namespace contest::kbuild
