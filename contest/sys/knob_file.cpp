#include "contest/sys/knob_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "contest/sys/path_below.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The tests' stand-in folder, resolved; nullopt when unset or missing.
std::optional<fs::path> test_knob_root() {
    const char* root = std::getenv(kTestKnobRootVariable);
    if (!root || !*root) return std::nullopt;
    std::error_code ec;
    fs::path real = fs::canonical(root, ec);
    if (ec || !fs::is_directory(real, ec)) return std::nullopt;
    return real;
}

std::string kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// An open knob file; closed with the object.
struct KnobFd {
    UniqueFd fd;
    bool stand_in = false;  // a plain file in the tests' folder, not the kernel's
};

// Opens path's file with `flags` once it is known to be a kernel setting
// (see the header); false and why (not naming the path) otherwise.
bool open_knob(const fs::path& path, int flags, KnobFd& out, std::string& why) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) {
        why = ec.message();
        return false;
    }
    const auto stand_in_root = test_knob_root();
    // Strictly below: a root is a folder, not a setting.
    out.stand_in = stand_in_root && path_below(real, *stand_in_root);
    if (!out.stand_in && !path_below(real, "/proc/sys") && !path_below(real, "/sys")) {
        why = (real == path ? std::string("it is")
                            : "it leads to " + printable(real.string()) + ",") +
              " outside /proc/sys and /sys: only kernel settings are varied";
        return false;
    }
    // No blocking open (a FIFO), no link swapped in since it was resolved.
    out.fd.reset(::open(real.c_str(), flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
    if (out.fd.get() < 0) {
        why = std::strerror(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(out.fd.get(), &st) != 0) {
        why = std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        why = "it is " + kind_of(st.st_mode) + ", not a kernel setting";
        return false;
    }
    return true;
}

// At most one page of the file; nullopt and why above that.
std::optional<std::string> read_bounded(const KnobFd& file, std::string& why) {
    std::string content(kMaxKnobFileBytes + 1, '\0');
    std::size_t got = 0;
    while (got < content.size()) {
        const ssize_t n = ::read(file.fd.get(), content.data() + got, content.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            why = std::strerror(errno);
            return std::nullopt;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got > kMaxKnobFileBytes) {
        why = "it holds more than " + std::to_string(kMaxKnobFileBytes) +
              " bytes, more than a kernel setting";
        return std::nullopt;
    }
    content.resize(got);
    return content;
}

}  // namespace

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
    KnobFd file;
    std::optional<std::string> content;
    if (open_knob(path, O_RDONLY, file, why)) content = read_bounded(file, why);
    if (!content) {
        why = printable(path.string()) + ": " + why;
        return std::nullopt;
    }
    return chosen_value(*content);
}

std::optional<std::string> write_knob_file(const std::filesystem::path& path,
                                           const std::string& value) {
    const std::string line = value + "\n";
    if (line.size() > kMaxKnobFileBytes)
        return "the value is longer than " + std::to_string(kMaxKnobFileBytes - 1) + " bytes";
    KnobFd file;
    std::string why;
    if (!open_knob(path, O_WRONLY, file, why)) return why;
    // A stand-in keeps its old bytes past the new ones unless cut; sysfs and
    // procfs take each write whole and are not truncated.
    if (file.stand_in && ::ftruncate(file.fd.get(), 0) != 0)
        return std::string(std::strerror(errno));
    // One write, not write_all: the kernel takes a setting in one piece.
    const ssize_t n = ::write(file.fd.get(), line.data(), line.size());
    const int write_errno = errno;
    const int closed = file.fd.close();
    if (n < 0) return std::string(std::strerror(write_errno));
    if (static_cast<std::size_t>(n) != line.size()) return std::string("short write");
    if (closed != 0) return std::string(std::strerror(errno));
    return std::nullopt;
}

}  // namespace contest
