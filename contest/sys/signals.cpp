#include "contest/sys/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>

#include "contest/sys/errors.h"

namespace contest {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
int g_pipe[2] = {-1, -1};

void on_interrupt(int) {
    int saved = errno;
    g_interrupted = 1;
    if (g_pipe[1] >= 0) {
        char b = 1;
        [[maybe_unused]] auto n = ::write(g_pipe[1], &b, 1);
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

void interruptible_sleep(double seconds) {
    throw_if_interrupted();
    struct timespec start {};
    ::clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct timespec now {};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        double elapsed =
            double(now.tv_sec - start.tv_sec) + double(now.tv_nsec - start.tv_nsec) / 1e9;
        double left = seconds - elapsed;
        if (left <= 0) return;
        struct pollfd pfd {
            interrupt_fd(), POLLIN, 0
        };
        int ms = int(std::ceil(left * 1000));
        ::poll(&pfd, pfd.fd >= 0 ? 1 : 0, ms);
        throw_if_interrupted();
    }
}

}  // namespace contest
