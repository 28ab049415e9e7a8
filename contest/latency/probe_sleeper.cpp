#include "contest/latency/probe_sleeper.h"

#include <signal.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "contest/sys/errors.h"

namespace contest::latency {

namespace {

timespec to_timespec(std::int64_t ns) {
    return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

sigset_t timer_signal_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN);
    return set;
}

}  // namespace

std::int64_t monotonic_ns() {
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

ProbeSleeper::ProbeSleeper(SleepMethod method) : method_(method) {
    if (method_ != SleepMethod::itimer) return;
    sigset_t set = timer_signal_set();
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
    sigevent ev{};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMIN;
    if (::timer_create(CLOCK_MONOTONIC, &ev, &timer_) != 0)
        throw EnvironmentError(std::string("timer_create: ") + std::strerror(errno));
    has_timer_ = true;
}

ProbeSleeper::~ProbeSleeper() {
    if (has_timer_) ::timer_delete(timer_);
}

void ProbeSleeper::until(std::int64_t deadline_ns) {
    switch (method_) {
        case SleepMethod::clock_ns: {
            timespec ts = to_timespec(deadline_ns);
            while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
            }
            return;
        }
        case SleepMethod::posix_ns: {
            std::int64_t left = deadline_ns - monotonic_ns();
            if (left <= 0) return;
            timespec ts = to_timespec(left), rest{};
            while (::nanosleep(&ts, &rest) != 0 && errno == EINTR) ts = rest;
            return;
        }
        case SleepMethod::itimer: {
            itimerspec its{};
            its.it_value = to_timespec(deadline_ns);
            if (::timer_settime(timer_, TIMER_ABSTIME, &its, nullptr) != 0)
                throw EnvironmentError(std::string("timer_settime: ") + std::strerror(errno));
            sigset_t set = timer_signal_set();
            while (::sigwaitinfo(&set, nullptr) < 0 && errno == EINTR) {
            }
            return;
        }
        case SleepMethod::poll:
            while (monotonic_ns() < deadline_ns) {
            }
            return;
    }
}

}  // namespace contest::latency
