#pragma once
// A program started again and again, each start itself measured (the exec
// probe, contest/latency/exec_start.h): by vfork and execve, not spawn()'s
// way (spawn.h), whose fork, PATH search and exec-error pipe would be timed
// with it.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace contest {

// Starts to be timed, of one program again and again: argv[0] (a path, not
// searched for) started with vfork, which copies none of the caller's page
// tables, as posix_spawn (and so a launcher) starts a program; in the
// caller's process group, dying with the caller, every signal at its
// default, its standard streams on /dev/null, its environment a child's
// that is not contest (child_environment.h). spawn()'s fork, PATH search
// and exec-error pipe would be timed with it and weigh more than a small
// program's whole start.
class TimedStarts {
  public:
    // Finds the signals the caller ignores or catches, once, with the raw
    // call (glibc's sigaction refuses its own two, 32 and 33, which a starter
    // can still leave ignored): the child resets only those, since exec would
    // keep an ignored one ignored and a caught one arriving before the exec
    // would run the caller's handler in the child, while a reset of every
    // signal in the child, as glibc's posix_spawn does, would be timed as the
    // start's cost: a tenth of a small program's start in a VM. The caller
    // must not change its signals' dispositions afterwards. Throws
    // UsageError for an empty argv.
    explicit TimedStarts(std::vector<std::string> argv);
    // One start.
    // started_ns: CLOCK_MONOTONIC at the request, before the
    // start's own set-up (its standard streams opened, signals blocked
    // around the vfork), as a launcher's user waits from there. Throws
    // EnvironmentError when it cannot start.
    pid_t start(std::int64_t& started_ns) const;
    const std::vector<std::string>& argv() const { return argv_; }

  private:
    std::vector<std::string> argv_;
    std::vector<std::string> env_;  // made once: a start is timed
    std::vector<int> not_default_;  // ignored or caught by the caller
};

}  // namespace contest
