#include "contest/sys/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "contest/sys/errors.h"

namespace contest {

namespace {

// Opened as it is when there, else made (exclusively, with `mode` whatever
// the umask): an O_CREAT of a file that is there is refused in a sticky
// folder others can write (fs.protected_regular) when it is another user's,
// which a lock in a folder every user shares is. One link only: a hard link
// to another file is not a lock to truncate.
UniqueFd open_lock_file(const std::filesystem::path& path, mode_t mode) {
    constexpr int kFlags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    for (;;) {
        UniqueFd fd(::open(path.c_str(), kFlags));
        if (fd.get() < 0 && errno == ENOENT) {
            fd = UniqueFd(::open(path.c_str(), kFlags | O_CREAT | O_EXCL, mode));
            if (fd.get() < 0 && errno == EEXIST) continue;  // made meanwhile: open that one
            if (fd.get() >= 0) (void)::fchmod(fd.get(), mode);
        }
        if (fd.get() < 0)
            throw EnvironmentError("cannot open the lock " + path.string() + ": " +
                                   std::strerror(errno));
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
            throw EnvironmentError("the lock " + path.string() + " is not a regular file");
        if (st.st_nlink != 1)
            throw EnvironmentError("the lock " + path.string() +
                                   " has other names (hard links): not a lock file");
        return fd;
    }
}

// Whether fd is still the file at path: a holder that ends removes the
// file while it holds it, and whoever had opened it before then locks a
// file no one else will open again.
bool still_at(int fd, const std::filesystem::path& path) {
    struct stat held {
    }, now{};
    return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &now) == 0 &&
           held.st_dev == now.st_dev && held.st_ino == now.st_ino;
}

}  // namespace

std::optional<FileLock> FileLock::try_take(const std::filesystem::path& path, mode_t mode) {
    for (;;) {
        UniqueFd fd = open_lock_file(path, mode);
        if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK) return std::nullopt;
            throw EnvironmentError("cannot lock " + path.string() + ": " + std::strerror(errno));
        }
        if (!still_at(fd.get(), path)) continue;  // removed by its holder meanwhile: anew
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd.get(), 0) == 0) (void)!::pwrite(fd.get(), pid.data(), pid.size(), 0);
        return FileLock(std::move(fd));
    }
}

pid_t FileLock::holder(const std::filesystem::path& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return 0;
    char text[32] = {};
    const ssize_t n = ::pread(fd.get(), text, sizeof text - 1, 0);
    if (n <= 0) return 0;
    char* end = nullptr;
    const long pid = std::strtol(text, &end, 10);
    return pid > 0 && end != text && *end == '\n' ? static_cast<pid_t>(pid) : 0;
}

pid_t FileLock::held_by(const std::filesystem::path& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (fd.get() < 0) return 0;
    // A shared lock is refused only while someone holds the exclusive one.
    if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return 0;
    return errno == EWOULDBLOCK ? holder(path) : 0;
}

}  // namespace contest
