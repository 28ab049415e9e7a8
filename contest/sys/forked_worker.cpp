#include "contest/sys/forked_worker.h"

#include <sys/mman.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "contest/sys/errors.h"
#include "contest/sys/spawn.h"

namespace contest {

SharedMapping::SharedMapping(std::size_t bytes)
    : data_(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)),
      bytes_(bytes) {
    if (data_ == MAP_FAILED) throw EnvironmentError(std::string("mmap: ") + std::strerror(errno));
}

SharedMapping::~SharedMapping() {
    ::munmap(data_, bytes_);
}

WorkerProcess::WorkerProcess(const std::function<int()>& fn) : group_(fork_function(fn)) {}

std::optional<int> WorkerProcess::wait_status() const {
    if (group_.pgid() <= 0) return std::nullopt;
    siginfo_t si{};
    // WNOWAIT: look, don't reap; the group guard is the one that reaps.
    if (::waitid(P_PID, static_cast<id_t>(group_.pgid()), &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        si.si_pid == 0)
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

}  // namespace contest
