#include "contest/sys/log_tail.h"

#include <algorithm>
#include <fstream>

namespace contest {

std::string tail_of_file(const std::filesystem::path& file, int lines) {
    if (lines <= 0) return "";
    std::ifstream in(file, std::ios::binary);
    if (!in) return "";
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size <= 0) return "";
    // Read backwards in blocks until enough line ends are seen; a final line
    // without '\n' counts as a line too.
    constexpr std::streamoff kBlock = 64 * 1024;
    std::string tail;
    std::streamoff start = size;
    for (;;) {
        std::streamoff from = std::max<std::streamoff>(0, start - kBlock);
        std::string block(static_cast<size_t>(start - from), '\0');
        in.seekg(from);
        in.read(block.data(), static_cast<std::streamsize>(block.size()));
        tail.insert(0, block);
        start = from;
        int ends = static_cast<int>(std::count(tail.begin(), tail.end(), '\n'));
        if (!tail.empty() && tail.back() != '\n') ++ends;
        if (ends > lines || start == 0) break;
    }
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
