#include "contest/sys/log_tail.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "contest/sys/unique_fd.h"

namespace contest {

std::string tail_of_file(const std::filesystem::path& file, int lines) {
    if (lines <= 0) return "";
    // A log may be written by what contest runs (a guest's results share
    // holds one): a link there is not followed, a FIFO not waited on.
    const UniqueFd fd(
        ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    const off_t size = st.st_size;
    if (size <= 0) return "";
    // Read backwards in blocks until enough line ends are seen; a final line
    // without '\n' counts as a line too.
    constexpr off_t kBlock = 64 * 1024;
    std::string tail;
    off_t start = size;
    for (;;) {
        const off_t from = std::max<off_t>(0, start - kBlock);
        std::string block(static_cast<size_t>(start - from), '\0');
        const ssize_t got = ::pread(fd.get(), block.data(), block.size(), from);
        block.resize(got > 0 ? static_cast<size_t>(got) : 0);
        tail.insert(0, block);
        start = from;
        int ends = static_cast<int>(std::count(tail.begin(), tail.end(), '\n'));
        if (!tail.empty() && tail.back() != '\n') ++ends;
        if (ends > lines || start == 0) break;
    }
    if (tail.empty()) return "";
    if (tail.back() != '\n') tail += '\n';
    // Keep the part after the (lines+1)-th line end from the back.
    size_t pos = tail.size() - 1;  // the final '\n'
    for (int seen = 0; seen < lines; ++seen) {
        size_t prev = pos == 0 ? std::string::npos : tail.rfind('\n', pos - 1);
        if (prev == std::string::npos) return tail;
        pos = prev;
    }
    return tail.substr(pos + 1);
}

}  // namespace contest
