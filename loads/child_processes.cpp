#include "loads/child_processes.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

namespace contest {

pid_t fork_load_member(const std::function<void()>& fn) {
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        try {
            fn();
        } catch (...) {
        }
        ::_exit(0);
    }
    return pid;
}

}  // namespace contest
