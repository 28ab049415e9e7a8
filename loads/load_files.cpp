#include "loads/load_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "contest/sys/errors.h"
#include "loads/child_processes.h"

namespace contest {
namespace {

// What the SIGTERM handler unlinks. Plain globals: a signal handler may only
// touch async-signal-safe state.
int g_term_dirfd = -1;
char g_term_name[256];

void unlink_then_die(int sig) {
    if (g_term_dirfd >= 0 && g_term_name[0]) ::unlinkat(g_term_dirfd, g_term_name, 0);
    // SA_RESETHAND restored the default action; the signal is blocked until
    // this handler returns, and then kills the process as if never caught.
    ::raise(sig);
}

std::string errno_text() {
    return std::strerror(errno);
}

}  // namespace

void UniqueFd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

UniqueFd open_load_dir(const std::filesystem::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) throw EnvironmentError("cannot open " + dir.string() + ": " + errno_text());
    return UniqueFd(fd);
}

int create_load_file(int dirfd, const char* name) {
    return ::openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

nlohmann::json DiskRoom::to_json() const {
    return {
        {"free_bytes", free_bytes}, {"fs_size_bytes", size_bytes}, {"margin_bytes", margin_bytes}};
}

DiskRoom disk_room(int dirfd) {
    struct statvfs vfs {};
    if (::fstatvfs(dirfd, &vfs) != 0) throw EnvironmentError("statvfs: " + errno_text());
    DiskRoom room;
    room.free_bytes = std::uint64_t{vfs.f_bavail} * vfs.f_frsize;
    room.size_bytes = std::uint64_t{vfs.f_blocks} * vfs.f_frsize;
    room.margin_bytes = std::max(kGiB, room.size_bytes / 20);
    return room;
}

nlohmann::json CappedSize::to_json() const {
    return {
        {"target_bytes", target}, {"cap_bytes", cap}, {"bytes", bytes}, {"capped", bytes < target}};
}

CappedSize cap_to_disk(std::string_view load, std::uint64_t target, const DiskRoom& room,
                       std::uint64_t minimum) {
    CappedSize size{target, room.usable(), std::min(target, room.usable())};
    if (size.bytes < minimum)
        throw EnvironmentError(std::string(load) +
                               ": no room on disk: " + std::to_string(room.free_bytes / kMiB) +
                               " MiB free, " + std::to_string(room.margin_bytes / kMiB) +
                               " MiB of it kept free for everyone else");
    return size;
}

void unlink_on_sigterm(int dirfd, const char* name) {
    g_term_dirfd = dirfd;
    std::snprintf(g_term_name, sizeof g_term_name, "%s", name);
    struct sigaction sa {};
    sa.sa_handler = unlink_then_die;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGTERM, &sa, nullptr);
}

std::optional<std::filesystem::path> find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!dirs.empty()) {
        auto colon = dirs.find(':');
        std::string_view dir = dirs.substr(0, colon);
        dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
        std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return std::nullopt;
}

pid_t start_program(const std::vector<std::string>& argv, const ProgramIo& io) {
    // Built before fork: the child only redirects and execs.
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return fork_load_member([&] {
        int null_fd = ::open("/dev/null", O_RDWR);
        int fds[3] = {io.in, io.out, io.err};
        for (int target = 0; target < 3; ++target)
            ::dup2(fds[target] >= 0 ? fds[target] : null_fd, target);
        // A load may ignore SIGPIPE for itself; the program gets the default.
        ::signal(SIGPIPE, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execvp(args[0], args.data());
        ::_exit(127);
    });
}

UniqueFd make_error_log(int dirfd) {
    return UniqueFd(::openat(dirfd, ".", O_TMPFILE | O_RDWR | O_APPEND | O_CLOEXEC, 0600));
}

std::string error_log_tail(int fd) {
    if (fd < 0) return {};
    struct stat st {};
    if (::fstat(fd, &st) != 0) return {};
    char buf[300];
    off_t from = std::max<off_t>(0, st.st_size - static_cast<off_t>(sizeof buf));
    ssize_t n = ::pread(fd, buf, sizeof buf, from);
    std::string tail(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    for (char& c : tail)
        if (c == '\n') c = ' ';
    return tail;
}

int wait_program(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return status;
}

std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
    return "status " + std::to_string(status);
}

void volunteer_for_oom_killer() {
    int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    [[maybe_unused]] auto n = ::write(fd, "1000", 4);
    ::close(fd);
}

std::uint64_t write_all(int fd, const char* data, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    return done;
}

}  // namespace contest
