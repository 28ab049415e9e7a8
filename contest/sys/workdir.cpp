#include "contest/sys/workdir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "contest/sys/errors.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

std::string why_not(int err) {
    if (err == ELOOP) return "it is a symbolic link, and contest follows none in its workdir";
    if (err == ENOTDIR) return "it is not a folder (or a symbolic link to one)";
    return std::strerror(err);
}

// Why name under dirfd could not be opened: a link is named as one (opening
// a link with O_DIRECTORY|O_NOFOLLOW says ENOTDIR, not ELOOP).
std::string why_not_at(int dirfd, const char* name, int err) {
    struct stat st {};
    if ((err == ENOTDIR || err == ELOOP) && ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        return why_not(ELOOP);
    return why_not(err);
}

// The steps of a path relative to the workdir; no absolute path, no "..".
std::vector<std::string> steps_of(const fs::path& rel) {
    std::vector<std::string> steps;
    for (const auto& part : rel.relative_path()) {
        const std::string s = part.string();
        if (s.empty() || s == ".") continue;
        if (s == ".." || rel.is_absolute())
            throw EnvironmentError("'" + rel.string() + "' is not a path inside the workdir");
        steps.push_back(s);
    }
    return steps;
}

// Opens (making it when asked) each step as a real folder under dirfd.
UniqueFd walk(int dirfd, const std::vector<std::string>& steps, std::size_t count, bool make,
              const fs::path& base) {
    UniqueFd cur(::fcntl(dirfd, F_DUPFD_CLOEXEC, 3));
    fs::path where = base;
    for (std::size_t i = 0; i < count; ++i) {
        where /= steps[i];
        if (make && ::mkdirat(cur.get(), steps[i].c_str(), 0700) != 0 && errno != EEXIST) {
            const int err = errno;
            throw EnvironmentError("cannot create " + where.string() + ": " + why_not(err));
        }
        UniqueFd next(
            ::openat(cur.get(), steps[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (next.get() < 0) {
            const std::string why = why_not_at(cur.get(), steps[i].c_str(), errno);
            throw EnvironmentError("cannot use " + where.string() + ": " + why);
        }
        cur = std::move(next);
    }
    return cur;
}

UniqueFd open_file_at(int dirfd, const char* name, const fs::path& shown) {
    UniqueFd fd(::openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0) {
        const std::string why = why_not(errno);
        throw EnvironmentError("cannot write " + shown.string() + ": " + why);
    }
    return fd;
}

}  // namespace

Workdir::Workdir(fs::path path, UniqueFd fd)
    : path_(std::move(path)), fd_(std::make_shared<UniqueFd>(std::move(fd))) {}

Workdir Workdir::open(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
        if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
            throw EnvironmentError("cannot create workdir " + path.string() + ": " +
                                   std::strerror(errno));
    }
    // The workdir itself may be reached through a link the user made; what
    // is under it may not. A link someone else made (root's run with a
    // user's $XDG_CACHE_HOME) could point it at /etc.
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode) && link.st_uid != ::geteuid())
        throw EnvironmentError("workdir " + path.string() + " is a symbolic link owned by uid " +
                               std::to_string(link.st_uid) + ", not by this user (uid " +
                               std::to_string(::geteuid()) +
                               "): refusing it (--workdir the folder it points to)");
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) {
        const std::string why = why_not(errno);
        throw EnvironmentError("cannot open workdir " + path.string() + ": " + why);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        throw EnvironmentError("cannot stat workdir " + path.string() + ": " +
                               std::strerror(errno));
    if (st.st_uid != ::geteuid())
        throw EnvironmentError("workdir " + path.string() + " is owned by uid " +
                               std::to_string(st.st_uid) + ", not by this user (uid " +
                               std::to_string(::geteuid()) +
                               "): refusing it, whoever owns it can plant links (--workdir)");
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        throw EnvironmentError("workdir " + path.string() +
                               " is writable by its group or others: refusing it, they could "
                               "plant links (chmod go-w it, or --workdir elsewhere)");
    return Workdir(path, std::move(fd));
}

UniqueFd Workdir::create_file(const fs::path& rel) const {
    auto steps = steps_of(rel);
    if (steps.empty()) throw EnvironmentError("no file name in '" + rel.string() + "'");
    UniqueFd dir = walk(fd(), steps, steps.size() - 1, true, path_);
    return open_file_at(dir.get(), steps.back().c_str(), path_ / rel);
}

UniqueFd Workdir::make_dir(const fs::path& rel) const {
    auto steps = steps_of(rel);
    return walk(fd(), steps, steps.size(), true, path_);
}

bool Workdir::remove_tree(const fs::path& rel) const {
    auto steps = steps_of(rel);
    if (steps.empty()) return false;  // never the workdir itself
    UniqueFd dir;
    try {
        dir = walk(fd(), steps, steps.size() - 1, false, path_);
    } catch (const EnvironmentError&) {
        return false;  // its folder is gone or is a link: nothing there is ours to remove
    }
    return remove_tree_at(dir.get(), steps.back().c_str());
}

fs::path Workdir::real_dir(const fs::path& rel) const {
    make_dir(rel);
    return path_ / rel;
}

bool remove_tree_at(int dirfd, const char* name) {
    UniqueFd dir(::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0) {
        if (errno == ENOENT) return true;
        // A file or a link: unlink the entry itself, never what it points to.
        return ::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT;
    }
    DIR* d = ::fdopendir(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 3));
    bool ok = d != nullptr;
    if (d) {
        std::vector<std::string> names;
        while (dirent* e = ::readdir(d)) {
            if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                names.emplace_back(e->d_name);
        }
        ::closedir(d);
        for (const auto& n : names) ok = remove_tree_at(dir.get(), n.c_str()) && ok;
    }
    return (::unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) && ok;
}

UniqueFd create_file_no_follow(const fs::path& path) {
    fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    UniqueFd dir(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) {
        const std::string why = why_not(errno);
        throw EnvironmentError("cannot write " + path.string() + ": " + why);
    }
    return open_file_at(dir.get(), path.filename().c_str(), path);
}

}  // namespace contest
