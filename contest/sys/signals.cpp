#include "contest/sys/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <limits>

#include "contest/sys/errors.h"
#include "contest/sys/unique_fd.h"

namespace contest {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
int g_pipe[2] = {-1, -1};

void on_interrupt(int) {
    int saved = errno;
    g_interrupted = 1;
    if (g_pipe[1] >= 0) {
        const char b = 1;
        write_all(g_pipe[1], &b, 1);
    }
    errno = saved;
}

}  // namespace

void install_interrupt_handlers() {
    if (g_pipe[0] < 0) {
        if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) std::perror("contest: pipe2");
    }
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool interrupted() {
    return g_interrupted != 0;
}

int interrupt_fd() {
    return g_pipe[0];
}

void throw_if_interrupted() {
    if (interrupted()) throw Interrupted();
}

InterruptSetAside::InterruptSetAside() : was_interrupted_(g_interrupted != 0) {
    g_interrupted = 0;
    // Emptied, or every poll on it would return at once.
    char drain[64];
    if (g_pipe[0] >= 0)
        while (::read(g_pipe[0], drain, sizeof drain) > 0) {
        }
}

InterruptSetAside::~InterruptSetAside() {
    if (!was_interrupted_ || g_interrupted) return;
    g_interrupted = 1;
    if (g_pipe[1] >= 0) {
        const char b = 1;
        write_all(g_pipe[1], &b, 1);
    }
}

void interruptible_sleep(double seconds) {
    throw_if_interrupted();
    const auto start = std::chrono::steady_clock::now();
    const std::chrono::duration<double> length(seconds);
    for (;;) {
        const std::chrono::duration<double> left =
            length - (std::chrono::steady_clock::now() - start);
        if (!(left.count() > 0)) return;
        struct pollfd pfd {
            interrupt_fd(), POLLIN, 0
        };
        ::poll(&pfd, pfd.fd >= 0 ? 1 : 0, poll_timeout_ms(left));
        throw_if_interrupted();
    }
}

int poll_timeout_ms(std::chrono::duration<double> left) {
    const double ms = std::ceil(left.count() * 1000);
    if (!(ms > 0)) return 0;
    if (ms >= static_cast<double>(std::numeric_limits<int>::max()))
        return std::numeric_limits<int>::max();
    return static_cast<int>(ms);
}

std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point start,
                                                     std::chrono::duration<double> length) {
    using Clock = std::chrono::steady_clock;
    if (!(length.count() > 0)) return start;
    // A second short of the end: a double's rounding near 2^63 ns is far
    // less, so the cast below cannot overflow.
    const std::chrono::duration<double> room =
        Clock::time_point::max() - start - std::chrono::seconds(1);
    if (!(length < room)) return Clock::time_point::max();
    return start + std::chrono::duration_cast<Clock::duration>(length);
}

}  // namespace contest
