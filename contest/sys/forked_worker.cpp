#include "contest/sys/forked_worker.h"

#include <sys/mman.h>

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
    return exit_status_unreaped(group_.pgid());  // the group guard's stop reaps it
}

}  // namespace contest
