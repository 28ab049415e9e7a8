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
#include <charconv>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "contest/sys/errors.h"
#include "contest/sys/proc_files.h"
#include "contest/sys/signals.h"
#include "contest/sys/text_file.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

template <typename Fn>
void for_each_process(Fn&& fn) {
    DIR* dir = ::opendir("/proc");
    if (!dir) return;
    while (struct dirent* e = ::readdir(dir)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        if (auto st = read_process_stat(static_cast<pid_t>(std::atoi(e->d_name)))) fn(*st);
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

std::optional<int> reap_if_exited(pid_t pid) {
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r == 0) return std::nullopt;
        if (errno != EINTR)
            throw EnvironmentError("cannot wait for process " + std::to_string(pid) + ": " +
                                   std::strerror(errno));
    }
}

std::optional<int> exit_status_unreaped(pid_t pid) {
    siginfo_t si{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        si.si_pid != pid)
        return std::nullopt;
    // waitid's siginfo, as the raw wait status waitpid would have given.
    switch (si.si_code) {
        case CLD_EXITED:
            return W_EXITCODE(si.si_status, 0);
        case CLD_DUMPED:
            return si.si_status | WCOREFLAG;
        default:
            return si.si_status;
    }
}

namespace {

// True once pid has exited (leaving it unreaped), or when it is no child to
// wait for at all: then the reap that follows says so.
bool has_exited(pid_t pid) {
    errno = 0;
    return exit_status_unreaped(pid) || errno == ECHILD;
}

}  // namespace

ExitInfo wait_child(pid_t pid, Clock::time_point started, const WaitHooks& hooks) {
    ExitInfo info;
    const UniqueFd pidfd(pidfd_open(pid));  // -1 on kernels before 5.3: poll by waitid then
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
        if (pidfd.get() < 0) timeout_ms = std::min(timeout_ms, 5);
        struct pollfd fds[2] = {{interrupt_fd(), POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
        int r = ::poll(fds, pidfd.get() >= 0 ? 2 : 1, timeout_ms);
        if (r < 0 && errno != EINTR) break;
        throw_if_interrupted();
        if (pidfd.get() >= 0 ? (fds[1].revents & POLLIN) != 0 : has_exited(pid)) {
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
    pid_t r;
    do {
        r = ::wait4(pid, &info.status, 0, &info.usage);
    } while (r < 0 && errno == EINTR);
    // Without a status the run's outcome is unknown: never "exit 0".
    if (r != pid)
        throw EnvironmentError("cannot collect the exit status of process " + std::to_string(pid) +
                               ": " + std::strerror(errno));
    if (ended == Clock::time_point{}) ended = Clock::now();
    info.wall_s = std::chrono::duration<double>(ended - started).count();
    return info;
}

std::vector<pid_t> group_members(pid_t pgid) {
    std::vector<pid_t> out;
    for_each_process([&](const ProcessStat& st) {
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
    for_each_process([&](const ProcessStat& st) {
        if (st.pgrp == pgid) total += st.cpu_ticks;
    });
    return static_cast<double>(total) / ticks;
}

std::vector<pid_t> own_children() {
    std::vector<pid_t> out;
    pid_t self = ::getpid();
    for_each_process([&](const ProcessStat& st) {
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
    const UniqueFd fd(::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC));
    if (fd.get() >= 0) write_all(fd.get(), "1000");
}

unsigned long long process_start_time(pid_t pid) {
    auto st = read_process_stat(pid);
    return st ? st->start_time : 0;
}

std::string owner_marker_text() {
    return std::to_string(::getpid()) + " " + std::to_string(process_start_time(::getpid())) + "\n";
}

bool contest_gone(pid_t pid, unsigned long long start_time) {
    if (pid <= 0) return true;
    const auto stat = read_process_stat(pid);
    if (!stat) return true;
    if (start_time != 0) return stat->start_time != start_time;
    const auto name = read_first_line("/proc/" + std::to_string(pid) + "/comm");
    return !name || !name->starts_with("contest");
}

std::optional<pid_t> pid_after_prefix(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
    pid_t pid = 0;
    const char* end = name.data() + name.size();
    const auto [at, ec] = std::from_chars(name.data() + prefix.size(), end, pid);
    if (ec != std::errc() || at != end || pid <= 0) return std::nullopt;
    return pid;
}

bool marker_owner_dead(const std::string& marker_text) {
    std::istringstream in(marker_text);
    long pid = 0;
    unsigned long long start = 0;
    if (!(in >> pid >> start) || pid <= 0 || start == 0) return true;
    return contest_gone(static_cast<pid_t>(pid), start);
}

}  // namespace contest
