#pragma once
// An exclusive lock on a file (flock), held while this lives, with the
// holder's pid written in it, so that another process can tell who holds it.
// Opened without following a link and close-on-exec: a program contest
// starts does not keep it. Its holder may remove the file while it holds it
// (its last act): a process that opened the file before then and locks it
// after finds it is no longer the file at the path, and takes the new one.
#include <sys/types.h>

#include <filesystem>
#include <optional>

#include "contest/sys/unique_fd.h"

namespace contest {

class FileLock {
  public:
    // The lock, or nullopt when another process holds it. A file made is
    // given `mode` (not masked by the umask). EnvironmentError when the file
    // cannot be opened (a link, a folder, a file of several links, no
    // permission).
    static std::optional<FileLock> try_take(const std::filesystem::path& path, mode_t mode = 0600);

    // The pid written by the process holding the lock at path, 0 when it
    // cannot be read (none wrote one yet).
    static pid_t holder(const std::filesystem::path& path);

    // The pid of the process holding the lock at path now, 0 when none
    // does (or the file is absent). Writes nothing, creates nothing.
    static pid_t held_by(const std::filesystem::path& path);

  private:
    explicit FileLock(UniqueFd fd) : fd_(std::move(fd)) {}
    UniqueFd fd_;
};

}  // namespace contest
