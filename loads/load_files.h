#pragma once
// What the file-system and command loads (io_load, read_load, the tar loads,
// dbench_load, --load-cmd) share: files made only inside the load's private
// folder and never through a symlink, room left on the disk, a file removed
// when the load is told to stop, the tail of a program's error log, and a
// program's stderr kept in the workdir. (Programs are started with
// contest/sys/spawn.h.)
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/sys/unique_fd.h"
#include "contest/sys/workdir.h"

namespace contest {

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Opens a folder for the *at() calls; refuses a symlink in its last part.
// Throws EnvironmentError.
UniqueFd open_load_dir(const std::filesystem::path& dir);

// Creates a new file in dirfd (O_EXCL, O_NOFOLLOW, 0600) for writing.
// Returns -1 with errno set.
int create_load_file(int dirfd, const char* name);

// How much of a file system a load may fill: what is free to an unprivileged
// user less a margin of max(1 GiB, 5% of the file system), so that the
// workload (and everyone else) still has room while the load runs.
struct DiskRoom {
    std::uint64_t free_bytes = 0;  // f_bavail x f_frsize
    std::uint64_t size_bytes = 0;  // f_blocks x f_frsize
    std::uint64_t margin_bytes = 0;
    std::uint64_t usable() const {
        return free_bytes > margin_bytes ? free_bytes - margin_bytes : 0;
    }
    nlohmann::json to_json() const;
};
DiskRoom disk_room(int dirfd);

// A load file's size: the target (RAM, or LoadOptions::size_bytes) capped to
// the room on its disk. Throws EnvironmentError when less than `minimum`
// would fit.
struct CappedSize {
    std::uint64_t target = 0;
    std::uint64_t cap = 0;
    std::uint64_t bytes = 0;  // min(target, cap)
    nlohmann::json to_json() const;
};
CappedSize cap_to_disk(std::string_view load, std::uint64_t target, const DiskRoom& room,
                       std::uint64_t minimum = 16 * kMiB);

// From now on, SIGTERM first unlinks dirfd/name (if it exists), then kills
// the process as the default action would. One file per process: the load's
// current output, so a stopped load leaves nothing behind even when nobody
// removes its folder.
void unlink_on_sigterm(int dirfd, const char* name);

// An unnamed file in dirfd for a program's stderr (gone when closed), and
// its last lines, for the reason a load gives when the program fails.
// Opened O_APPEND: ftruncate(fd, 0) empties it for the next program.
UniqueFd make_error_log(int dirfd);
std::string error_log_tail(int fd);

// A program's stderr in a file of the workdir, for the user to read and for
// the line a load's failure quotes: made without following a link, emptied
// at each start of the program, and cut to its last part whenever it has
// grown past a few MiB (keep_bounded, which the load calls as it polls), so
// that a program that writes without end fills no disk.
class ProgramLog {
  public:
    // Creates or empties workdir/name. Throws EnvironmentError.
    ProgramLog(const Workdir& workdir, const std::string& name);
    int fd() const { return fd_.get(); }  // O_APPEND: the program's stderr
    const std::filesystem::path& path() const { return path_; }
    void empty() const;
    void keep_bounded() const;
    // Its last line that is not blank (at most a couple of hundred bytes,
    // made printable), or "" when it has none.
    std::string last_line() const;

  private:
    UniqueFd fd_;
    // The same file without O_APPEND, for the cut: its notice and kept lines
    // are written over the file's start before the file is cut short, so the
    // program's appends can never land ahead of the notice.
    UniqueFd cut_fd_;
    std::filesystem::path path_;
};

}  // namespace contest
