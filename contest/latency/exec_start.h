#pragma once
// One start of the exec probe's program: what a person waits for when a
// program opens, from the fork to the program's exit (exec, page-in of its
// file and its libraries, the dynamic linker, its own start-up).
#include <cstdint>
#include <string>
#include <vector>

namespace contest::latency {

// Starts argv (argv[0] a path) in the caller's process group, so that the
// probe's stop stops it too, and dying with the caller; its standard
// streams on /dev/null. Reaps it and returns the ns from just before the
// fork to the reaping. Throws EnvironmentError when it cannot start or does
// not exit 0: a command that fails is not one whose start is timed.
std::int64_t time_one_start(const std::vector<std::string>& argv);

}  // namespace contest::latency
