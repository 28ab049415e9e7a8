// What a start's clock includes, part by part: times the same program's
// start three ways, in turns, each after a 200 ms sleep (the exec probe's
// pace), from the request to the reap, and prints each way's median and
// its difference to the probe's way.
//
//   probe        contest's exec probe (contest/sys/spawn.cpp, TimedStarts):
//                /dev/null opened, signals blocked, vfork; the child resets
//                only the signals its starter ignores, dup2 x3, exec
//   probe+reset  the same, and the child puts every signal's handler back
//                to the default first, as glibc's posix_spawn child does
//                (a query and a set for each: about 126 rt_sigaction)
//   posix_spawn  hyperfine -N's start: Rust's Command::spawn as it calls
//                glibc's posix_spawn (/dev/null opened three times, dup2
//                file actions, SETSIGMASK and SETSIGDEF(SIGPIPE); glibc adds
//                a getrlimit per dup2, a stack mmap and munmap and the loop
//                above), the three closed, the reap
//
//   cc -O2 -o /tmp/exec_start_parts bench/exec_start_parts.c
//   /tmp/exec_start_parts STARTS PROGRAM [ARG...]   (PROGRAM a path)
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static char** program;

static int reaped_ok(pid_t pid) {
    int status = 0;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The vfork child's part of the probe's start; with reset_all, glibc's
// child loop first.
static void __attribute__((noreturn, noinline)) exec_in_child(pid_t parent, int devnull, int reset_all) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    if (reset_all)
        for (int sig = 1; sig < NSIG; ++sig) {
            // glibc keeps its two internal signals; the kernel refuses these.
            if (sig == SIGKILL || sig == SIGSTOP || sig == 32 || sig == 33) continue;
            struct sigaction sa = {0};
            sigaction(sig, NULL, &sa);
            if (sa.sa_handler == SIG_IGN) continue;
            sa.sa_handler = SIG_DFL;
            sigaction(sig, &sa, NULL);
        }
    for (int fd = 0; fd < 3; ++fd) dup2(devnull, fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(program[0], program, environ);
    _exit(127);
}

static long long probe_start(int reset_all) {
    const long long t0 = now_ns();
    const int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t parent = getpid();
    const pid_t pid = vfork();
    if (pid == 0) exec_in_child(parent, devnull, reset_all);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    const int ok = pid > 0 && reaped_ok(pid);
    const long long t1 = now_ns();
    close(devnull);
    return ok ? t1 - t0 : -1;
}

static long long posix_spawn_start(void) {
    const long long t0 = now_ns();
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = open("/dev/null", O_WRONLY | O_CLOEXEC);
    const int err = open("/dev/null", O_WRONLY | O_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, err, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t set;
    sigemptyset(&set);
    posix_spawnattr_setsigmask(&attr, &set);
    sigaddset(&set, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &set);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int failed = posix_spawn(&pid, program[0], &actions, &attr, program, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close(in);
    close(out);
    close(err);
    const int ok = !failed && reaped_ok(pid);
    return ok ? now_ns() - t0 : -1;
}

static int by_value(const void* a, const void* b) {
    const long long x = *(const long long*)a, y = *(const long long*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    if (argc < 3 || atoi(argv[1]) < 1 || argv[2][0] != '/') {
        fprintf(stderr, "usage: exec_start_parts STARTS /PATH/TO/PROGRAM [ARG...]\n");
        return 2;
    }
    const int n = atoi(argv[1]);
    program = argv + 2;
    enum { WAYS = 3 };
    const char* names[WAYS] = {"probe", "probe+reset", "posix_spawn"};
    long long* times[WAYS];
    for (int w = 0; w < WAYS; ++w) times[w] = calloc((size_t)n, sizeof(long long));
    const struct timespec pace = {0, 200000000};
    for (int i = 0; i < n; ++i)
        for (int w = 0; w < WAYS; ++w) {
            nanosleep(&pace, NULL);
            times[w][i] = w == 2 ? posix_spawn_start() : probe_start(w == 1);
            if (times[w][i] < 0) {
                fprintf(stderr, "exec_start_parts: %s did not start or did not exit 0\n",
                        program[0]);
                return 1;
            }
        }
    double median[WAYS];
    for (int w = 0; w < WAYS; ++w) {
        qsort(times[w], (size_t)n, sizeof(long long), by_value);
        median[w] = (double)times[w][n / 2];
    }
    for (int w = 0; w < WAYS; ++w)
        printf("%-12s median %9.1f us  %+7.1f us against the probe's way\n", names[w],
               median[w] / 1e3, (median[w] - median[0]) / 1e3);
    return 0;
}
