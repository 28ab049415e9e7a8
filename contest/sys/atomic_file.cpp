#include "contest/sys/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

std::string write_cause(int error) {
    return error == ELOOP ? "a symlink loop" : std::strerror(error);
}

// "a folder", "a symbolic link", ...: what is at a path that is not a file.
std::string file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The content in a new temporary file beside path (path.tmp.PID), synced
// and closed: "" and its path in `tmp`, or the reason it could not be
// written (nothing left behind), the file at path untouched either way.
std::string synced_temporary(const fs::path& path, const std::string& content, fs::path& tmp) {
    const std::string name = printable(path.string());
    const auto failed = [&](const std::string& why) {
        return "cannot write " + name + ": " + why + " (the file as it was is kept)";
    };
    // The rename would replace whatever is at path: a device node, a FIFO or
    // a link the user named by mistake (--plot /dev/full) must stay what it is.
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return "cannot write " + name + ": it is " + file_kind(st.st_mode) +
               ", not a regular file (contest replaces only regular files)";
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return "cannot create the folder " + printable(folder.string()) + ": " + ec.message();
    tmp = path;
    tmp += ".tmp." + std::to_string(::getpid());
    // A stale temporary (or a link planted in its place) goes first; O_EXCL
    // and O_NOFOLLOW then make sure the file written is a new one.
    ::unlink(tmp.c_str());
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd.get() < 0) return failed(write_cause(errno));
    const auto give_up = [&](int error) {
        fd.reset();
        ::unlink(tmp.c_str());
        return failed(write_cause(error));
    };
    if (!write_all(fd.get(), content)) return give_up(errno);
    // The data must be on disk before the rename makes it the file: else a
    // crash could leave an empty file where the last good one was.
    if (::fsync(fd.get()) != 0) return give_up(errno);
    if (fd.close() != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return failed(write_cause(e));
    }
    return "";
}

// The new name is in the folder's data: without this, a crash right after
// could bring back the file as it was before.
void sync_folder(const fs::path& path) {
    const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (const UniqueFd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        dir.get() >= 0)
        ::fsync(dir.get());
}

}  // namespace

std::optional<std::string> try_write_file_atomically(const std::filesystem::path& path,
                                                     const std::string& content) {
    fs::path tmp;
    if (std::string why = synced_temporary(path, content, tmp); !why.empty()) return why;
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return "cannot write " + printable(path.string()) + ": " + write_cause(e) +
               " (the file as it was is kept)";
    }
    sync_folder(path);
    return std::nullopt;
}

bool create_file_atomically(const std::filesystem::path& path, const std::string& content) {
    fs::path tmp;
    if (std::string why = synced_temporary(path, content, tmp); !why.empty())
        throw EnvironmentError(why);
    const int linked = ::link(tmp.c_str(), path.c_str());
    const int e = errno;
    ::unlink(tmp.c_str());
    if (linked != 0 && e == EEXIST) return false;
    if (linked != 0)
        throw EnvironmentError("cannot write " + printable(path.string()) + ": " + write_cause(e));
    sync_folder(path);
    return true;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
    if (auto error = try_write_file_atomically(path, content)) throw EnvironmentError(*error);
}

}  // namespace contest
