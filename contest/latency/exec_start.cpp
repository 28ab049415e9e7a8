#include "contest/latency/exec_start.h"

#include <sys/wait.h>

#include "contest/latency/probe_sleeper.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "contest/sys/words.h"

namespace contest::latency {

std::int64_t time_one_start(const std::vector<std::string>& argv) {
    std::int64_t before = 0;
    const pid_t pid = spawn_to_time(argv, before);
    const int status = wait_for_exit(pid);
    const std::int64_t after = monotonic_ns();
    if (status < 0) throw EnvironmentError(join_words(argv) + ": cannot be reaped");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw EnvironmentError(join_words(argv) + " ended with " + describe_wait_status(status) +
                               "; the exec probe times a command that succeeds");
    return after - before;
}

}  // namespace contest::latency
