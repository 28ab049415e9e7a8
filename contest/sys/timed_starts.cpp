#include "contest/sys/timed_starts.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "contest/sys/child_environment.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

// The kernel's struct sigaction, through the raw call: glibc refuses the two
// signals it keeps for itself (32 and 33), yet a starter can leave them
// ignored, and an ignored signal stays ignored through exec. The handler
// comes first on every architecture; the rest is left zero.
struct KernelSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    std::uint64_t mask;
};

bool at_default(int sig) {
    KernelSigaction now{};
    return ::syscall(SYS_rt_sigaction, sig, nullptr, &now, sizeof now.mask) != 0 ||
           now.handler == SIG_DFL;
}

// Async-signal-safe.
void set_default(int sig) {
    const KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
    ::syscall(SYS_rt_sigaction, sig, &dfl, nullptr, sizeof dfl.mask);
}

}  // namespace

TimedStarts::TimedStarts(std::vector<std::string> argv)
    : argv_(std::move(argv)), env_(child_environment({}, false)) {
    if (argv_.empty() || argv_.front().empty()) throw UsageError("empty command");
    for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP && !at_default(sig)) not_default_.push_back(sig);
}

pid_t TimedStarts::start(std::int64_t& started_ns) const {
    timespec now{};
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    started_ns = static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
    std::vector<char*> args;
    args.reserve(argv_.size() + 1);
    for (const auto& a : argv_) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    env.reserve(env_.size() + 1);
    for (const auto& e : env_) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
    const UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
    if (devnull.get() < 0)
        throw EnvironmentError(std::string("cannot open /dev/null: ") + std::strerror(errno));
    // The child shares the caller's memory until it execs: every signal is
    // blocked around vfork so that no handler of the caller's runs in it,
    // and it writes only exec_errno before _exit.
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t parent = ::getpid();
    volatile int exec_errno = 0;
    const pid_t pid = ::vfork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);  // the caller already gone
        // Before the signals are unblocked: a caught one pending then would
        // run the caller's handler here, on the caller's memory; an ignored
        // one would stay ignored through exec.
        for (int sig : not_default_) set_default(sig);
        for (int fd = 0; fd < 3; ++fd) ::dup2(devnull.get(), fd);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execve(args.front(), args.data(), env.data());
        exec_errno = errno;
        ::_exit(127);
    }
    const int vfork_errno = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0)
        throw EnvironmentError("cannot start " + argv_.front() + ": " + std::strerror(vfork_errno));
    if (exec_errno != 0) {
        wait_for_exit(pid);
        throw EnvironmentError("cannot run " + argv_.front() + ": " + std::strerror(exec_errno));
    }
    return pid;
}

}  // namespace contest
