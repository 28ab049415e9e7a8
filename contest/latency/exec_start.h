#pragma once
// One start of the exec probe's program: what a person waits for when a
// program opens, from the request to start it to its exit and reaping
// (the starter's set-up of the child's streams, vfork, exec, page-in of its
// file and its libraries, the dynamic linker, its own start-up and exit).
#include <cstdint>
#include <string>
#include <vector>

#include "contest/sys/timed_starts.h"

namespace contest::latency {

// The probe's program, started again and again with TimedStarts, in the
// caller's process group, so that the probe's stop stops it too; its
// standard streams on /dev/null. Made once the probe has set itself up.
class ProgramStarts {
  public:
    explicit ProgramStarts(const std::vector<std::string>& argv);
    // One start, reaped: the ns from the request to start it to the reaping.
    // Throws EnvironmentError when it cannot start or does not exit 0: a
    // command that fails is not one whose start is timed.
    std::int64_t time_one() const;

  private:
    TimedStarts starts_;
};

}  // namespace contest::latency
