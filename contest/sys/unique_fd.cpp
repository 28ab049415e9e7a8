#include "contest/sys/unique_fd.h"

#include <cerrno>

namespace contest {

std::uint64_t write_all(int fd, const char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (n == 0) {  // write(2) makes no progress only when the device is full
            errno = ENOSPC;
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return done;
}

}  // namespace contest
