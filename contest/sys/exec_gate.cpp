#include "contest/sys/exec_gate.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "contest/sys/errors.h"

namespace contest {

ExecGate::ExecGate() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw EnvironmentError(std::string("cannot create a pipe: ") + std::strerror(errno));
    read_fd_.reset(fds[0]);
    write_fd_.reset(fds[1]);
}

void ExecGate::wait_in_child() noexcept {
    write_fd_.reset();  // the child's copy; EOF then means the parent is gone
    char byte;
    while (::read(read_fd_.get(), &byte, 1) < 0 && errno == EINTR) {
    }
}

void ExecGate::release() {
    if (write_fd_.get() < 0) return;
    const char byte = 1;
    write_all(write_fd_.get(), &byte, 1);
    write_fd_.reset();
}

}  // namespace contest
