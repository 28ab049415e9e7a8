#include "contest/sys/trusted_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

namespace contest {
namespace {

namespace fs = std::filesystem;

// Why the entry at path, as lstat saw it, could be changed by someone else;
// nullopt when it cannot. A sticky folder others can write (/tmp, /var/tmp)
// is no way in on the way down (`last` false): nobody but its owner and
// root can rename or remove the entry below, whose own owner is checked
// next; as the folder itself it is one anybody can add to.
std::optional<std::string> open_to_others(const fs::path& path, const struct stat& st, bool last) {
    if (st.st_uid != 0 && st.st_uid != ::geteuid())
        return path.string() + " is owned by uid " + std::to_string(st.st_uid);
    const bool sticky_step = !last && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky_step)
        return path.string() + " is writable by its group or others";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> folder_open_to_others(const fs::path& real) {
    if (!real.is_absolute()) return real.string() + " is not an absolute path";
    fs::path at;
    for (auto step = real.begin(); step != real.end(); ++step) {
        at /= *step;
        struct stat st {};
        if (::lstat(at.c_str(), &st) != 0) {
            if (errno == ENOENT) return std::nullopt;
            return at.string() + ": " + std::strerror(errno);
        }
        if (S_ISLNK(st.st_mode)) return at.string() + " is a symbolic link";
        if (!S_ISDIR(st.st_mode)) return at.string() + " is not a folder";
        if (auto why = open_to_others(at, st, std::next(step) == real.end())) return why;
    }
    return std::nullopt;
}

std::optional<std::string> file_open_to_others(const fs::path& real) {
    if (auto why = folder_open_to_others(real.parent_path())) return why;
    struct stat st {};
    if (::lstat(real.c_str(), &st) != 0)
        return errno == ENOENT ? std::nullopt
                               : std::optional(real.string() + ": " + std::strerror(errno));
    if (S_ISLNK(st.st_mode)) return real.string() + " is a symbolic link";
    if (!S_ISREG(st.st_mode)) return real.string() + " is not a regular file";
    return open_to_others(real, st, true);
}

}  // namespace contest
