#include "loads/load_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"

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

// A ProgramLog past kLogCap is cut to its last kLogKept bytes.
constexpr off_t kLogCap = 4 * static_cast<off_t>(kMiB);
constexpr std::size_t kLogKept = 256 << 10;
constexpr std::size_t kLastLineBytes = 200;

// Up to `bytes` of fd's end, from the file's current size.
std::string end_of_file(int fd, std::size_t bytes) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return {};
    const off_t from = std::max<off_t>(0, st.st_size - static_cast<off_t>(bytes));
    std::string text(static_cast<std::size_t>(st.st_size - from), '\0');
    const ssize_t n = ::pread(fd, text.data(), text.size(), from);
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return text;
}

}  // namespace

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

ProgramLog::ProgramLog(const Workdir& workdir, const std::string& name)
    : fd_(::openat(workdir.fd(), name.c_str(),
                   O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)),
      path_(workdir.path() / name) {
    if (fd_.get() < 0)
        throw EnvironmentError("cannot write " + path_.string() + ": " + errno_text());
    // Reopened through the descriptor, not the name: the same file even if
    // something else took the name in between.
    const std::string self = "/proc/self/fd/" + std::to_string(fd_.get());
    cut_fd_ = UniqueFd(::open(self.c_str(), O_WRONLY | O_CLOEXEC));
    if (cut_fd_.get() < 0)
        throw EnvironmentError("cannot write " + path_.string() + ": " + errno_text());
}

void ProgramLog::empty() const {
    ::ftruncate(fd_.get(), 0);
}

void ProgramLog::keep_bounded() const {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0 || st.st_size <= kLogCap) return;
    std::string kept = end_of_file(fd_.get(), kLogKept);
    kept.erase(0, kept.find('\n') + 1);  // from the first whole line
    kept.insert(0, "contest: the lines before these were cut, to keep this log small\n");
    // Written over the start (the file is far longer than kept: no overlap
    // with where kept was read), then cut after it. What the program appends
    // between the read and the cut is lost: a log that grows this fast has
    // said what it had to say many times over. What it appends after the cut
    // lands behind the kept lines (its descriptor appends).
    const auto written = ::pwrite(cut_fd_.get(), kept.data(), kept.size(), 0);
    if (written != static_cast<ssize_t>(kept.size()))
        return;  // a log that cannot be written is no reason to stop the load
    ::ftruncate(cut_fd_.get(), static_cast<off_t>(kept.size()));
}

std::string ProgramLog::last_line() const {
    std::string text = end_of_file(fd_.get(), 4096);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    text.erase(0, text.rfind('\n') + 1);  // npos + 1 is 0: all of it
    if (text.size() > kLastLineBytes) text = text.substr(0, kLastLineBytes) + "...";
    return printable(text);
}

}  // namespace contest
