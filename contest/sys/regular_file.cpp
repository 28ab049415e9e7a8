#include "contest/sys/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/unique_fd.h"

namespace contest {

std::string RegularFileRead::why() const {
    switch (refusal) {
        case Refusal::none:
            return "";
        case Refusal::cannot_open:
            return error == ELOOP ? "a symlink loop" : std::strerror(error);
        case Refusal::symlink:
            return "a symbolic link, not followed";
        case Refusal::not_regular:
            return "not a regular file";
        case Refusal::too_large:
            return "too large";
    }
    return "";
}

RegularFileRead read_regular_file_at(int dirfd, const char* name, std::uintmax_t max_bytes,
                                     bool follow_link) {
    RegularFileRead got;
    auto refuse = [&](RegularFileRead::Refusal r, int error = 0) {
        got.text.clear();
        got.refusal = r;
        got.error = error;
        return got;
    };
    const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (follow_link ? 0 : O_NOFOLLOW);
    const UniqueFd file(::openat(dirfd, name, flags));
    if (file.get() < 0) {
        const int err = errno;
        struct stat st {};
        if (!follow_link && err == ELOOP && ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            return refuse(RegularFileRead::Refusal::symlink);
        return refuse(RegularFileRead::Refusal::cannot_open, err);
    }
    struct stat st {};
    if (::fstat(file.get(), &st) != 0) return refuse(RegularFileRead::Refusal::cannot_open, errno);
    if (!S_ISREG(st.st_mode)) return refuse(RegularFileRead::Refusal::not_regular);
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
        return refuse(RegularFileRead::Refusal::too_large);
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(file.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return refuse(RegularFileRead::Refusal::cannot_open, errno);
        if (n == 0) break;
        got.text.append(buf, static_cast<std::size_t>(n));
        // A file still growing as it is read.
        if (got.text.size() > max_bytes) return refuse(RegularFileRead::Refusal::too_large);
    }
    return got;
}

}  // namespace contest
