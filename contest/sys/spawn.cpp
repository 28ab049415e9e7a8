#include "contest/sys/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/search_path.hpp>

#include "contest/sys/child_environment.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"

namespace contest {
namespace {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

std::string errno_text() {
    return std::strerror(errno);
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> out;
    out.reserve(v.size() + 1);
    for (auto& s : v) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// The child's copy of a stream lands on 0, 1 or 2 by dup2; keeping it at 3
// or above (and close-on-exec) means no dup2 overwrites another's source.
UniqueFd above_standard_fds(int fd) {
    if (fd < 0 || fd > 2) return UniqueFd(fd);
    UniqueFd low(fd);
    return UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

// One standard stream, opened in the parent: the child's end (-1: inherit)
// and, for a pipe, the parent's.
struct OpenedStream {
    UniqueFd child_end, parent_end;
};

OpenedStream open_stream(const StdStream& s, bool for_reading) {
    OpenedStream o;
    switch (s.kind) {
        case StdStream::Kind::inherit:
            break;
        case StdStream::Kind::null:
            o.child_end = above_standard_fds(::open("/dev/null", O_RDWR | O_CLOEXEC));
            if (o.child_end.get() < 0)
                throw EnvironmentError("cannot open /dev/null: " + errno_text());
            break;
        case StdStream::Kind::file: {
            // O_NOFOLLOW: a log is never written through a planted link.
            int flags = for_reading
                            ? O_RDONLY
                            : O_WRONLY | O_CREAT | O_NOFOLLOW | (s.append ? O_APPEND : O_TRUNC);
            o.child_end = above_standard_fds(::open(s.path.c_str(), flags | O_CLOEXEC, 0644));
            if (o.child_end.get() < 0)
                throw EnvironmentError("cannot open " + s.path.string() + ": " + errno_text());
            break;
        }
        case StdStream::Kind::fd:
            o.child_end = UniqueFd(::fcntl(s.fd, F_DUPFD_CLOEXEC, 3));
            if (o.child_end.get() < 0)
                throw EnvironmentError("bad descriptor " + std::to_string(s.fd) + ": " +
                                       errno_text());
            break;
        case StdStream::Kind::pipe: {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC) != 0) throw EnvironmentError("pipe: " + errno_text());
            UniqueFd read_end = above_standard_fds(fds[0]), write_end = above_standard_fds(fds[1]);
            o.child_end = for_reading ? std::move(read_end) : std::move(write_end);
            o.parent_end = for_reading ? std::move(write_end) : std::move(read_end);
            break;
        }
    }
    return o;
}

// What a new child does first, for programs and forked functions alike:
// its group, its death signal, default signal handling. Returns false when
// the parent is already gone (then the death signal would never come).
bool tie_child(pid_t parent, const ChildTies& ties) {
    if (ties.own_group) ::setpgid(0, 0);
    if (ties.death_signal != 0) {
        ::prctl(PR_SET_PDEATHSIG, ties.death_signal);
        if (::getppid() != parent) return false;
    }
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    return true;
}

// The parent's half of the group: also set here, so that there is no window
// in which the child still is in contest's group.
void place_in_group(pid_t pid, const ChildTies& ties) {
    if (ties.own_group) ::setpgid(pid, pid);
}

// SpawnOptions::after_fork's half of the handshake. Boost.Process gives the
// parent no hook between fork and its wait for exec, so the child sends its
// pid down a pipe and a thread of the parent runs after_fork on it while the
// child waits in before_exec. When the child dies first, the pipe reaches
// end of file and after_fork is not called.
class AfterFork {
  public:
    explicit AfterFork(const std::function<void(pid_t)>& fn) {
        if (!fn) return;
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw EnvironmentError("pipe: " + errno_text());
        read_end_ = UniqueFd(fds[0]);
        write_end_ = UniqueFd(fds[1]);
        thread_ = std::thread([this, fn] {
            pid_t pid = -1;
            if (::read(read_end_.get(), &pid, sizeof pid) != sizeof pid) return;
            try {
                fn(pid);
            } catch (...) {
                failure_ = std::current_exception();
                ::kill(pid, SIGKILL);  // it would wait before exec for ever
            }
        });
    }
    ~AfterFork() { finish(); }
    // In the child (async-signal-safe).
    void send_pid() const {
        if (write_end_.get() < 0) return;
        const pid_t self = ::getpid();
        write_all(write_end_.get(), reinterpret_cast<const char*>(&self), sizeof self);
    }
    // In the parent once the child has exec'd or died; rethrows after_fork's error.
    void finish() {
        write_end_ = UniqueFd();
        if (thread_.joinable()) thread_.join();
    }
    std::exception_ptr failure() const { return failure_; }

  private:
    UniqueFd read_end_, write_end_;
    std::thread thread_;
    std::exception_ptr failure_;
};

// All a pipe gives until its writers close it. Polled together with the
// interrupt fd: Ctrl-C reaches contest, not the child in its own group, so
// a blocking read would never end. Throws Interrupted.
// The text up to the end of fd, or nullopt when the deadline came first.
std::optional<std::string> read_until_end(int fd, std::optional<Clock::time_point> deadline) {
    std::string text;
    char buf[4096];
    for (;;) {
        int wait_ms = -1;
        if (deadline) {
            const auto left =
                std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now());
            if (left.count() <= 0) return std::nullopt;
            wait_ms = static_cast<int>(std::min<std::int64_t>(left.count(), 60'000));
        }
        struct pollfd fds[2] = {{interrupt_fd(), POLLIN, 0}, {fd, POLLIN, 0}};
        if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR)
            throw EnvironmentError("poll: " + errno_text());
        throw_if_interrupted();
        if (fds[1].revents == 0) continue;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw EnvironmentError("read: " + errno_text());
        if (n == 0) return text;
        text.append(buf, static_cast<std::size_t>(n));
    }
}

}  // namespace

std::optional<std::filesystem::path> find_on_path(std::string_view name,
                                                  std::string_view search_path) {
    if (name.empty()) return std::nullopt;
    if (name.find('/') != std::string_view::npos) {
        std::filesystem::path p(name);
        std::error_code ec;
        if (std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0) return p;
        return std::nullopt;
    }
    std::vector<boost::filesystem::path> dirs;
    while (!search_path.empty()) {
        auto colon = search_path.find(':');
        std::string_view dir = search_path.substr(0, colon);
        search_path =
            colon == std::string_view::npos ? std::string_view() : search_path.substr(colon + 1);
        if (!dir.empty()) dirs.emplace_back(std::string(dir));
    }
    auto found = bp::search_path(std::string(name), dirs);
    if (found.empty()) return std::nullopt;
    return std::filesystem::path(found.string());
}

std::optional<std::filesystem::path> find_on_path(std::string_view name) {
    const char* path = std::getenv("PATH");
    return find_on_path(name, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

SpawnOptions in_callers_group(int in, int out, int err) {
    SpawnOptions options;
    options.in = StdStream::from_fd(in);
    options.out = StdStream::from_fd(out);
    options.err = StdStream::from_fd(err);
    options.ties = ChildTies::in_callers_group();
    return options;
}

Spawned spawn_with_pipes(const std::vector<std::string>& argv, const SpawnOptions& options) {
    if (argv.empty() || argv.front().empty()) throw UsageError("empty command");
    auto exe = find_on_path(argv.front());
    if (!exe) {
        bool is_path = argv.front().find('/') != std::string::npos;
        throw EnvironmentError("cannot run " + argv.front() + ": " +
                               (is_path ? "no such executable file" : "not found on PATH"));
    }
    // Everything the child needs is made before fork: it only calls
    // async-signal-safe functions between fork and exec.
    std::vector<std::string> env =
        child_environment(options.env_overrides, is_contest_program(*exe));
    std::vector<char*> env_c = c_strings(env);
    OpenedStream streams[3] = {open_stream(options.in, true), open_stream(options.out, false),
                               open_stream(options.err, false)};
    const std::string cwd = options.cwd.string();
    const std::string cwd_error = "cannot enter " + cwd;
    const pid_t parent = ::getpid();
    const ChildTies ties = options.ties;
    AfterFork after_fork(options.after_fork);

    std::error_code error;
    pid_t failed_pid = -1;
    bp::child child(
        bp::exe = exe->string(), bp::args = std::vector<std::string>(argv.begin() + 1, argv.end()),
        error, bp::extend::on_setup = [&](auto& exec) { exec.env = env_c.data(); },
        bp::extend::on_error = [&](auto& exec, const std::error_code&) { failed_pid = exec.pid; },
        bp::extend::on_exec_setup =
            [&](auto& exec) {
                if (!tie_child(parent, ties)) ::_exit(1);  // contest already gone
                for (int target = 0; target < 3; ++target)
                    if (streams[target].child_end.get() >= 0)
                        ::dup2(streams[target].child_end.get(), target);
                if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
                    exec.set_error(std::error_code(errno, std::system_category()),
                                   cwd_error.c_str());
                    ::_exit(127);
                }
                after_fork.send_pid();
                if (options.before_exec) options.before_exec();
            });
    after_fork.finish();
    if (error) {
        // Boost leaves the child that failed to exec unreaped.
        if (failed_pid > 0) wait_for_exit(failed_pid);
        throw EnvironmentError("cannot run " + argv.front() + ": " + error.message());
    }
    if (auto failure = after_fork.failure()) {
        wait_for_exit(child.id());
        child.detach();
        std::rethrow_exception(failure);
    }
    Spawned spawned;
    spawned.pid = child.id();
    place_in_group(spawned.pid, ties);
    // From here on the pid is contest's alone: Boost's waits give no rusage
    // and would reap behind wait_child's back.
    child.detach();
    spawned.in = std::move(streams[0].parent_end);
    spawned.out = std::move(streams[1].parent_end);
    spawned.err = std::move(streams[2].parent_end);
    return spawned;
}

pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
    return spawn_with_pipes(argv, options).pid;
}

pid_t fork_function(const std::function<int()>& fn, const ChildTies& ties) {
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) throw EnvironmentError("fork: " + errno_text());
    if (pid == 0) {
        if (!tie_child(parent, ties)) ::_exit(1);
        int rc = 1;
        try {
            rc = fn();
        } catch (const std::exception& e) {
            say(std::string("load process: ") + e.what());
        } catch (...) {
        }
        ::_exit(rc);
    }
    place_in_group(pid, ties);
    return pid;
}

namespace {

// command_output's work; nullopt when the deadline came first, "" when the
// command could not run or failed.
std::optional<std::string> output_of(const std::vector<std::string>& argv, SpawnOptions options,
                                     std::optional<std::chrono::milliseconds> within) {
    options.out = StdStream::pipe();
    if (options.err.kind == StdStream::Kind::inherit) options.err = StdStream::null();
    options.ties.own_group = true;  // so that the guard stops all it started
    try {
        const auto started = Clock::now();
        std::optional<Clock::time_point> deadline;
        if (within) deadline = started + *within;
        Spawned child = spawn_with_pipes(argv, options);
        GroupGuard guard(child.pid);
        const std::optional<std::string> text = read_until_end(child.out.get(), deadline);
        if (!text) return std::nullopt;  // the guard stops and reaps it
        WaitHooks hooks;
        if (deadline) hooks.timeout = std::chrono::duration<double>(*deadline - started);
        ExitInfo exit = wait_child(child.pid, started, hooks);
        guard.stop();
        if (exit.timed_out) return std::nullopt;
        return exit.exited_ok() ? *text : std::string();
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception&) {
        return std::string();
    }
}

}  // namespace

std::string command_output(const std::vector<std::string>& argv, SpawnOptions options) {
    return *output_of(argv, std::move(options), std::nullopt);
}

std::optional<std::string> command_output_within(const std::vector<std::string>& argv,
                                                 std::chrono::milliseconds within,
                                                 SpawnOptions options) {
    return output_of(argv, std::move(options), within);
}

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

void run_checked(const std::vector<std::string>& argv, const SpawnOptions& options,
                 const std::string& what) {
    auto started = Clock::now();
    pid_t pid = spawn(argv, options);
    GroupGuard guard(pid);
    ExitInfo info = wait_child(pid, started);
    guard.stop();  // stray descendants of the step
    if (!info.exited_ok()) throw_step_failed(what, info, options);
}

void throw_step_failed(const std::string& what, const ExitInfo& info, const SpawnOptions& options) {
    std::string msg = what + " failed (" + info.describe() + ")";
    const auto log = options.log();
    if (log) msg += "; see " + log->string();
    throw StepFailed(msg, what, log ? log->string() : std::string());
}

}  // namespace contest
