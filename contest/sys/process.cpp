#include "contest/sys/process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/signals.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

struct ProcStat {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgrp = 0;
    char state = '?';
    unsigned long long cpu_ticks = 0;  // utime + stime + cutime + cstime
};

bool read_proc_stat(pid_t pid, ProcStat& out) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    // comm may hold spaces and parentheses: fields resume after the last ')'.
    const char* p = std::strrchr(buf, ')');
    if (!p) return false;
    char state = '?';
    int ppid = 0, pgrp = 0;
    unsigned long long utime = 0, stime = 0;
    long long cutime = 0, cstime = 0;
    int got = std::sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
                          &state, &ppid, &pgrp, &utime, &stime, &cutime, &cstime);
    if (got != 7) return false;
    out = ProcStat{pid, ppid, pgrp, state,
                   utime + stime + static_cast<unsigned long long>(cutime + cstime)};
    return true;
}

template <typename Fn>
void for_each_process(Fn&& fn) {
    DIR* dir = ::opendir("/proc");
    if (!dir) return;
    while (struct dirent* e = ::readdir(dir)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        ProcStat st;
        if (read_proc_stat(static_cast<pid_t>(std::atoi(e->d_name)), st)) fn(st);
    }
    ::closedir(dir);
}

int pidfd_open(pid_t pid) {
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

// Reaps whatever of group pgid is ours and already dead. Never blocks.
void reap_dead_members(pid_t pgid) {
    for (;;) {
        int status;
        pid_t r = ::waitpid(-pgid, &status, WNOHANG);
        if (r <= 0) return;
    }
}

}  // namespace

bool ExitInfo::exited_ok() const {
    return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ExitInfo::describe() const {
    return timed_out ? "timed out" : describe_wait_status(status);
}

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               ::strsignal(WTERMSIG(status)) + ")";
    return "status " + std::to_string(status);
}

int wait_for_exit(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return status;
}

namespace {

// True once pid has exited; leaves it unreaped.
bool has_exited(pid_t pid) {
    siginfo_t si{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == pid;
}

}  // namespace

ExitInfo wait_child(pid_t pid, Clock::time_point started, const WaitHooks& hooks) {
    ExitInfo info;
    int pidfd = pidfd_open(pid);  // -1 on kernels before 5.3: poll by waitid then
    // time_point::max() stands for "not set".
    constexpr auto kNever = Clock::time_point::max();
    Clock::time_point deadline = kNever, kill_at = kNever;
    if (hooks.timeout) deadline = deadline_after(started, *hooks.timeout);
    auto next_tick = Clock::now() + hooks.tick_interval;
    Clock::time_point ended{};
    for (;;) {
        auto now = Clock::now();
        auto wake = std::min({next_tick, deadline, kill_at});
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wake - now).count();
        int timeout_ms = static_cast<int>(std::clamp<long long>(ms, 0, 1000));
        if (pidfd < 0) timeout_ms = std::min(timeout_ms, 5);
        struct pollfd fds[2] = {{interrupt_fd(), POLLIN, 0}, {pidfd, POLLIN, 0}};
        int r = ::poll(fds, pidfd >= 0 ? 2 : 1, timeout_ms);
        if (r < 0 && errno != EINTR) break;
        if (interrupted()) {
            if (pidfd >= 0) ::close(pidfd);
            throw Interrupted();
        }
        if (pidfd >= 0 ? (fds[1].revents & POLLIN) != 0 : has_exited(pid)) {
            ended = Clock::now();
            break;
        }
        now = Clock::now();
        if (hooks.tick && now >= next_tick) {
            hooks.tick();
            next_tick = now + hooks.tick_interval;
        }
        if (now >= deadline) {
            info.timed_out = true;
            ::kill(-pid, SIGTERM);
            ::kill(-pid, SIGCONT);
            deadline = kNever;
            kill_at = now + std::chrono::seconds(2);
        }
        if (now >= kill_at) {
            ::kill(-pid, SIGKILL);
            kill_at = kNever;
        }
    }
    if (hooks.on_exit) hooks.on_exit();
    if (pidfd >= 0) ::close(pidfd);
    pid_t r;
    do {
        r = ::wait4(pid, &info.status, 0, &info.usage);
    } while (r < 0 && errno == EINTR);
    if (ended == Clock::time_point{}) ended = Clock::now();
    info.wall_s = std::chrono::duration<double>(ended - started).count();
    return info;
}

std::vector<pid_t> group_members(pid_t pgid) {
    std::vector<pid_t> out;
    for_each_process([&](const ProcStat& st) {
        if (st.pgrp == pgid && st.state != 'Z' && st.state != 'X') out.push_back(st.pid);
    });
    return out;
}

void stop_group(pid_t pgid, std::chrono::milliseconds grace) {
    if (pgid <= 1) return;
    ::kill(-pgid, SIGTERM);
    ::kill(-pgid, SIGCONT);  // a stopped process cannot act on TERM
    auto deadline = Clock::now() + grace;
    bool killed = false;
    auto give_up = deadline + std::chrono::seconds(10);
    for (;;) {
        reap_dead_members(pgid);
        if (group_members(pgid).empty()) break;
        auto now = Clock::now();
        if (!killed && now >= deadline) {
            ::kill(-pgid, SIGKILL);
            killed = true;
        }
        if (now >= give_up) break;  // D state for > 10 s: nothing more we can do
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    reap_dead_members(pgid);
}

double group_cpu_seconds(pid_t pgid) {
    static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    unsigned long long total = 0;
    for_each_process([&](const ProcStat& st) {
        if (st.pgrp == pgid) total += st.cpu_ticks;
    });
    return static_cast<double>(total) / ticks;
}

std::vector<pid_t> own_children() {
    std::vector<pid_t> out;
    pid_t self = ::getpid();
    for_each_process([&](const ProcStat& st) {
        if (st.ppid == self) out.push_back(st.pid);
    });
    return out;
}

void kill_and_reap_all_children() {
    for (pid_t pid : own_children()) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        int status;
        ::waitpid(pid, &status, 0);
    }
}

void become_subreaper() {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

void volunteer_for_oom_killer() {
    int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    [[maybe_unused]] auto n = ::write(fd, "1000", 4);
    ::close(fd);
}

}  // namespace contest
