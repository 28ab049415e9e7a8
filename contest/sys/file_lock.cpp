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

UniqueFd open_lock_file(const std::filesystem::path& path) {
    UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
    if (fd.get() < 0)
        throw EnvironmentError("cannot open the lock " + path.string() + ": " +
                               std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw EnvironmentError("the lock " + path.string() + " is not a regular file");
    return fd;
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

std::optional<FileLock> FileLock::try_take(const std::filesystem::path& path) {
    for (;;) {
        UniqueFd fd = open_lock_file(path);
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
