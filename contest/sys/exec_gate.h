#pragma once
// The handshake around a child's exec (SpawnOptions::before_exec and
// after_fork, spawn.h): a pipe the child waits on, released by the parent
// once it has set up what the child's pid needs before the program runs.
#include "contest/sys/unique_fd.h"

namespace contest {

// The pipe a forked child waits on before exec (SpawnOptions::before_exec),
// so the parent can set something up on its pid first (perf counters). wait_in_child() is
// async-signal-safe.
class ExecGate {
  public:
    ExecGate();  // throws EnvironmentError when no pipe can be made
    // In the child: blocks until release() (or the parent is gone).
    void wait_in_child() noexcept;
    // In the parent (after_fork), once what the child waits for is done.
    void release();

  private:
    UniqueFd read_fd_, write_fd_;
};

}  // namespace contest
