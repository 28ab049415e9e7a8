#include "contest/latency/exec_start.h"

#include <sys/wait.h>

#include "contest/latency/probe_sleeper.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/words.h"

namespace contest::latency {

ProgramStarts::ProgramStarts(const std::vector<std::string>& argv) : starts_(argv) {}

std::int64_t ProgramStarts::time_one() const {
    std::int64_t before = 0;
    const pid_t pid = starts_.start(before);
    // wait4 returns at the child's exit and reaps it in the same call: the
    // exit notification and the reap are one moment for the caller.
    const int status = wait_for_exit(pid);
    const std::int64_t after = monotonic_ns();
    if (status < 0) throw EnvironmentError(join_words(starts_.argv()) + ": cannot be reaped");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw EnvironmentError(join_words(starts_.argv()) + " ended with " +
                               describe_wait_status(status) +
                               "; the exec probe times a command that succeeds");
    return after - before;
}

}  // namespace contest::latency
