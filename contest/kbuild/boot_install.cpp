#include "contest/kbuild/boot_install.h"

#include <algorithm>
#include <fstream>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

fs::path release_folder(const std::string& release, const fs::path& root) {
    if (release.empty() || release.find('/') != std::string::npos || release == "." ||
        release == "..")
        throw EnvironmentError("no release folder for the release '" + printable(release) + "'");
    return root / "lib/modules" / release;
}

std::string mark_of(const fs::path& folder) {
    std::error_code ec;
    if (fs::is_symlink(folder / kContestMadeMark, ec)) return "";
    return trim_blanks(read_text_file((folder / kContestMadeMark).string()).value_or(""));
}

}  // namespace

std::string boot_localversion(const std::string& key) {
    return "-contest-" + key.substr(0, 8);
}

std::string initramfs_setup_sha256(const fs::path& root) {
    std::string text = std::string("contest initramfs set-up 1\ntool ") +
                       (find_on_path("mkinitramfs") ? "mkinitramfs"
                        : find_on_path("dracut")    ? "dracut"
                                                    : "none") +
                       "\n";
    std::vector<fs::path> files;
    std::error_code ec;
    for (const char* place : {"etc/initramfs-tools", "usr/share/initramfs-tools", "etc/dracut.conf",
                              "etc/dracut.conf.d", "usr/lib/dracut"}) {
        const fs::path at = root / place;
        if (fs::is_regular_file(at, ec)) files.push_back(at);
        if (!fs::is_directory(at, ec)) continue;
        for (auto it = fs::recursive_directory_iterator(at, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->is_regular_file(ec) || it->is_symlink(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        text += "file " + file.lexically_relative(root).string() + " ";
        if (fs::is_symlink(file, ec))
            text += "-> " + fs::read_symlink(file, ec).string();
        else
            text += file_sha256_hex(file).value_or("unreadable");
        text += "\n";
    }
    return sha256_hex(text);
}

std::string initramfs_name(const std::string& release, const std::string& setup_sha256) {
    return "initrd.img-" + release + "-" + setup_sha256.substr(0, 12);
}

bool contest_made(const std::string& release, const fs::path& root) {
    std::error_code ec;
    const fs::path folder = release_folder(release, root);
    return fs::is_directory(folder, ec) && !fs::is_symlink(folder, ec) && !mark_of(folder).empty();
}

bool install_release(const fs::path& staged, const std::string& release, const std::string& key,
                     const fs::path& root) {
    const fs::path folder = release_folder(release, root);
    std::error_code ec;
    if (fs::exists(folder, ec) || fs::is_symlink(folder, ec)) {
        if (!contest_made(release, root))
            throw EnvironmentError(folder.string() + " is there and contest did not make it (no " +
                                   kContestMadeMark + "): contest does not overwrite it");
        if (mark_of(folder) == key) return false;
        fs::remove_all(folder, ec);
    }
    const fs::path partial = folder.string() + ".contest-partial";
    fs::remove_all(partial, ec);
    fs::create_directories(partial.parent_path(), ec);
    if (!staged.empty() && fs::is_directory(staged, ec))
        fs::copy(staged, partial, fs::copy_options::recursive | fs::copy_options::copy_symlinks,
                 ec);
    else
        fs::create_directories(partial, ec);
    if (ec)
        throw EnvironmentError("cannot install the modules into " + partial.string() + ": " +
                               ec.message());
    // The mark first, then the rename: a folder at the release's path is
    // always marked.
    std::ofstream(partial / kContestMadeMark) << key << "\n";
    fs::rename(partial, folder, ec);
    if (ec)
        throw EnvironmentError("cannot move " + partial.string() + " to " + folder.string() + ": " +
                               ec.message());
    return true;
}

bool remove_release(const std::string& release, const fs::path& root) {
    if (!contest_made(release, root)) return false;
    std::error_code ec;
    fs::remove_all(release_folder(release, root), ec);
    return !ec;
}

void make_initramfs(const std::string& release, const fs::path& out) {
    if (!contest_made(release))
        throw EnvironmentError("no initramfs for " + release + ": /lib/modules/" + release +
                               " is not one contest made");
    std::vector<std::string> argv;
    if (find_on_path("mkinitramfs"))
        argv = {"mkinitramfs", "-o", out.string(), release};
    else if (find_on_path("dracut"))
        argv = {"dracut", "--force", out.string(), release};
    else
        throw EnvironmentError(
            "--boot of a built kernel makes its initramfs with mkinitramfs or dracut, and "
            "neither is installed (Debian package initramfs-tools)");
    SpawnOptions so;
    so.log_to(out.string() + ".log");
    run_checked(argv, so, "making the initramfs of " + release + " (" + argv.front() + ")");
}

}  // namespace contest::kbuild
