#include "contest/sys/text_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include "contest/sys/unique_fd.h"

namespace contest {

// With read(2) rather than ifstream: /proc and /sys files report errors
// (EOPNOTSUPP from a disabled PSI, EACCES) only from read, and they are to
// be named.
std::optional<std::string> read_text_file(const std::string& path, std::string* why) {
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    const int fd = file.get();
    auto fail = [&](int err) -> std::optional<std::string> {
        if (why) *why = path + ": " + std::strerror(err);
        return std::nullopt;
    };
    if (fd < 0) return fail(errno);
    std::string text;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            return fail(errno);
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    return text;
}

std::optional<std::string> read_first_line(const std::string& path, std::string* why) {
    auto text = read_text_file(path, why);
    if (!text) return std::nullopt;
    return text->substr(0, text->find('\n'));
}

}  // namespace contest
