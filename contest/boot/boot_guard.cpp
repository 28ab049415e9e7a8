#include "contest/boot/boot_guard.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "contest/boot/boot_unit.h"
#include "contest/sys/errors.h"
#include "contest/sys/path_below.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

const fs::path kTmp = "/tmp";

// The folder itself, or the nearest one above it that exists: the mount it
// is (or will be) on.
fs::path existing_folder(fs::path p) {
    std::error_code ec;
    while (!fs::exists(p, ec) && p.has_relative_path()) p = p.parent_path();
    return p;
}

// Why a boot would take what is at path away ("" when it would not): under
// /tmp, which the FHS lets a boot clear and Debian's systemd-tmpfiles
// (tmp.conf's `D /tmp`) does clear, on a disk too; or on a tmpfs or ramfs.
std::string emptied_at_boot(const fs::path& path) {
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(path, ec);
    if (!ec && (real == kTmp || path_below(real, kTmp)))
        return "is under /tmp, which is emptied at boot";
    struct statfs st {};
    if (::statfs(existing_folder(path).c_str(), &st) == 0 &&
        (st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC))
        return "is on a tmpfs or ramfs, which a reboot empties";
    return "";
}

[[noreturn]] void refuse(const std::string& why) {
    throw EnvironmentError("--boot: " + why);
}

}  // namespace

void check_boot_place_names(const BootPlaces& p) {
    const std::pair<const char*, const fs::path*> named[] = {
        {"--results", &p.results}, {"--workdir", &p.workdir}, {"--boot-root", &p.unit_root}};
    for (const auto& [what, path] : named)
        if (const std::string why = unit_path_problem(*path); !why.empty())
            throw UsageError(std::string(what) + " " + why);
}

void check_boot_places(const BootPlaces& p) {
    const std::string results = printable(p.results.string());
    if (const std::string why = emptied_at_boot(p.results); !why.empty())
        refuse("the results folder " + results + " " + why +
               ": give --results a folder that a reboot keeps (e.g. /var/lib/contest/results)");
    struct statvfs vfs {};
    if (::statvfs(existing_folder(p.results).c_str(), &vfs) == 0 && (vfs.f_flag & ST_NOEXEC))
        refuse("the results folder " + results +
               " is on a noexec mount, where the unit could not run contest's copy in it at boot: "
               "give --results a folder on a mount that allows programs");
    if (auto why = folder_open_to_others(p.results))
        refuse("the results folder " + results + ": " + *why +
               ": refusing it, root runs contest's copy from it at every boot (give --results a "
               "folder that only root can write, and each folder above it too: chown root, "
               "chmod go-w)");
    if (const std::string why = emptied_at_boot(p.workdir); !why.empty())
        refuse("the workdir " + printable(p.workdir.string()) + " " + why +
               ", and each boot's step runs in it: give --workdir a folder a reboot keeps");
    for (const fs::path& folder : {p.unit_root / "etc/systemd/system", p.unit_root / "run"})
        if (auto why = folder_open_to_others(folder))
            refuse("the unit's folder " + printable(folder.string()) + ": " + *why +
                   ": refusing it, systemd runs the unit written there as root");
    // What sd_booted() looks for. Another root's own init is the caller's
    // (the tests' machines run the unit's ExecStart themselves).
    std::error_code ec;
    if (p.unit_root == "/" && !fs::is_directory("/run/systemd/system", ec))
        refuse(
            "systemd is not running as PID 1 here (no /run/systemd/system), so nothing would "
            "start contest's unit after the reboot to take the next turn");
}

void check_boot_workdir(const fs::path& workdir) {
    for (const fs::path& below : {workdir / "kbuild/cache", workdir / "kbuild/trees"})
        if (auto why = folder_open_to_others(below))
            throw UsageError("--boot: the workdir " + printable(workdir.string()) + ": " +
                             printable(*why) +
                             ": refusing it, root builds, installs and boots the kernels it keeps "
                             "and runs the loads in it at every boot (give --workdir a folder "
                             "that only root can change, and each folder above it: chown root, "
                             "chmod go-w)");
}

void make_results_folder(const fs::path& results) {
    fs::path at;
    for (const auto& step : results) {
        at /= step;
        if (::mkdir(at.c_str(), 0755) != 0 && errno != EEXIST)
            refuse("cannot create the results folder " + printable(at.string()) + ": " +
                   std::strerror(errno));
    }
    if (auto why = folder_open_to_others(results))
        refuse("the results folder " + printable(results.string()) + ": " + *why);
}

UniqueFd open_copy_folder(const fs::path& results) {
    const fs::path boot = results / ".boot";
    if (::mkdir(boot.c_str(), 0700) != 0 && errno != EEXIST)
        refuse("cannot create " + printable(boot.string()) + ": " + std::strerror(errno));
    UniqueFd fd(::open(boot.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0)
        refuse("cannot use " + printable(boot.string()) +
               " (a link, or no folder): " + std::strerror(errno));
    if (st.st_uid != ::geteuid())
        refuse(printable(boot.string()) + " is owned by uid " + std::to_string(st.st_uid) +
               ": remove it, it is contest's own");
    if (::fchmod(fd.get(), 0700) != 0)
        refuse("cannot make " + printable(boot.string()) + " 0700: " + std::strerror(errno));
    return fd;
}

void copy_into(const UniqueFd& dir, const char* name, const fs::path& from, const fs::path& to,
               mode_t mode) {
    const auto fail = [&](const std::string& why) {
        throw EnvironmentError("--boot: cannot copy " + printable(from.string()) + " to " +
                               printable(to.string()) + ": " + why);
    };
    const UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (in.get() < 0 || ::fstat(in.get(), &st) != 0) fail(std::strerror(errno));
    if (::unlinkat(dir.get(), name, 0) != 0 && errno != ENOENT) fail(std::strerror(errno));
    UniqueFd out(
        ::openat(dir.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (out.get() < 0) fail(std::strerror(errno));
    for (off_t done = 0; done < st.st_size;) {
        const ssize_t n = ::sendfile(out.get(), in.get(), &done, st.st_size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(n < 0 ? std::strerror(errno) : "the file got shorter while copied");
    }
    if (::fsync(out.get()) != 0 || out.close() != 0) fail(std::strerror(errno));
}

}  // namespace contest
