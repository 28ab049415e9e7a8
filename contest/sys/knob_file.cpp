#include "contest/sys/knob_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace contest {

std::string chosen_value(const std::string& content) {
    std::string text = content;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\t'))
        text.pop_back();
    std::istringstream words(text);
    std::string word, chosen;
    int count = 0;
    while (words >> word) {
        ++count;
        const bool bracketed = word.size() > 2 && ((word.front() == '[' && word.back() == ']') ||
                                                   (word.front() == '(' && word.back() == ')'));
        if (bracketed && chosen.empty()) chosen = word.substr(1, word.size() - 2);
    }
    // A lone "[x]" is a value of its own, not a choice among several.
    return count > 1 && !chosen.empty() ? chosen : text;
}

std::optional<std::string> read_knob_file(const std::filesystem::path& path, std::string& why) {
    std::ifstream in(path);
    if (!in) {
        why = path.string() + ": " + std::strerror(errno);
        return std::nullopt;
    }
    std::stringstream content;
    content << in.rdbuf();
    if (in.bad()) {
        why = path.string() + ": read error";
        return std::nullopt;
    }
    return chosen_value(content.str());
}

std::optional<std::string> write_knob_file(const std::filesystem::path& path,
                                           const std::string& value) {
    // O_TRUNC for plain files; sysfs and procfs ignore it.
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return std::string(std::strerror(errno));
    const std::string line = value + "\n";
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int write_errno = errno;
    const int closed = ::close(fd);
    if (n < 0) return std::string(std::strerror(write_errno));
    if (static_cast<std::size_t>(n) != line.size()) return std::string("short write");
    if (closed != 0) return std::string(std::strerror(errno));
    return std::nullopt;
}

}  // namespace contest
