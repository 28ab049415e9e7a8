#pragma once
// What the file-system and command loads (io_load, read_load, the tar loads,
// dbench_load) share: files made only inside the load's private folder and
// never through a symlink, room left on the disk, a file removed when the
// load is told to stop, and programs run as members of the load's group.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace contest {

inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Owns a file descriptor: closed when this goes out of scope.
class UniqueFd {
  public:
    explicit UniqueFd(int fd = -1) : fd_(fd) {}
    UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
    UniqueFd& operator=(UniqueFd&& o) noexcept {
        reset(o.release());
        return *this;
    }
    ~UniqueFd() { reset(); }
    int get() const { return fd_; }
    int release() {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd = -1);

  private:
    int fd_;
};

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

// The first executable called `name` on PATH.
std::optional<std::filesystem::path> find_on_path(std::string_view name);

// Starts argv as a member of the calling load's group that dies with the
// load (PR_SET_PDEATHSIG). stdin/stdout/stderr go to the given fds (-1:
// /dev/null). Returns the child's pid.
struct ProgramIo {
    int in = -1, out = -1, err = -1;
};
pid_t start_program(const std::vector<std::string>& argv, const ProgramIo& io);

// An unnamed file in dirfd for a program's stderr (gone when closed), and
// its last lines, for the reason a load gives when the program fails.
// Opened O_APPEND: ftruncate(fd, 0) empties it for the next program.
UniqueFd make_error_log(int dirfd);
std::string error_log_tail(int fd);

// Waits for a child (retrying on EINTR); returns the raw wait status.
int wait_program(pid_t pid);

// "exit 2" / "killed by signal 9", for failure messages.
std::string describe_status(int status);

// Makes the calling process the OOM killer's first choice, so that a load
// that meets memory pressure dies instead of the workload or the machine.
void volunteer_for_oom_killer();

// Writes all of data to fd, retrying short writes and EINTR; returns the
// bytes write() accepted (fewer only on error, with errno set).
std::uint64_t write_all(int fd, const char* data, std::size_t size);

}  // namespace contest
