#pragma once
// A function of contest's own run in a forked child, with a block of memory
// the two share: the one mechanism under a running load and a running probe.
// The child is in its own process group (one killpg stops it and all it
// starts) and gets SIGKILL when contest dies (ChildTies' defaults); it runs
// the function and _exits with its return value. The block is mapped
// MAP_SHARED|MAP_ANONYMOUS before the fork, so both sides see the same
// bytes, and it is unmapped on every path: also when the fork throws, or the
// constructor of the class that holds the worker does.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <new>
#include <optional>
#include <string>

#include "contest/sys/process.h"

namespace contest {

// An anonymous shared mapping of `bytes` zero bytes, unmapped when this goes
// out of scope. Throws EnvironmentError when it cannot be mapped.
class SharedMapping {
  public:
    explicit SharedMapping(std::size_t bytes);
    ~SharedMapping();
    SharedMapping(const SharedMapping&) = delete;
    SharedMapping& operator=(const SharedMapping&) = delete;
    void* data() const { return data_; }

  private:
    void* data_;
    std::size_t bytes_;
};

// The child: forked by the constructor (fork_function), stopped and reaped
// by its group guard (stop_group); wait_status only looks.
class WorkerProcess {
  public:
    explicit WorkerProcess(const std::function<int()>& fn);
    // SIGTERM to the group, SIGKILL after the grace, reaped; a no-op once stopped.
    void stop() { group_.stop(); }
    pid_t pgid() const { return group_.pgid(); }  // -1 once stopped
    // The raw wait status once the child has ended, nullopt while it runs
    // or once stopped. Looks without reaping.
    std::optional<int> wait_status() const;

  private:
    GroupGuard group_;
};

// Block: default-constructible, made of plain data and lock-free atomics (it
// is shared between processes), with a `char error[N]` where the child
// writes, NUL-terminated, why it gave up.
template <class Block>
class ForkedWorker {
  public:
    // Maps a fresh Block, then forks the child, which runs fn on it.
    explicit ForkedWorker(const std::function<int(Block&)>& fn)
        : mapping_(sizeof(Block)),
          block_(mapping_.data()),
          process_([&fn, block = block_.get()] { return fn(*block); }) {}
    // Members go in reverse: the group is stopped and reaped before the
    // block it writes is destroyed and unmapped.
    ~ForkedWorker() = default;
    ForkedWorker(const ForkedWorker&) = delete;
    ForkedWorker& operator=(const ForkedWorker&) = delete;

    Block& block() { return *block_.get(); }
    const Block& block() const { return *block_.get(); }
    pid_t pgid() const { return process_.pgid(); }
    void stop() { process_.stop(); }

    // Why the child is not running any more: "not running" once stopped;
    // else, once it has ended, the reason it left in the block or how it
    // ended in describe_wait_status's words; nullopt while it runs.
    std::optional<std::string> failure() const {
        if (process_.pgid() <= 0) return "not running";
        auto status = process_.wait_status();
        if (!status) return std::nullopt;
        if (block().error[0] != '\0') return std::string(block().error);
        return describe_wait_status(*status);
    }

  private:
    // The Block constructed in the mapping, destroyed with this.
    class Placed {
      public:
        explicit Placed(void* at) : block_(new (at) Block()) {}
        ~Placed() { block_->~Block(); }
        Placed(const Placed&) = delete;
        Placed& operator=(const Placed&) = delete;
        Block* get() const { return block_; }

      private:
        Block* block_;
    };

    SharedMapping mapping_;
    Placed block_;
    WorkerProcess process_;
};

}  // namespace contest
