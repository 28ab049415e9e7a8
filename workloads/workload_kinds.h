#pragma once
// The workload kinds make_workload knows, and the few helpers they share.
// Each kind lives in its own file: synthetic.cpp, command.cpp, kernel.cpp.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace contest {

std::unique_ptr<Workload> make_synthetic_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_command_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_kernel_workload(const WorkloadOptions& options);

// The full path of program found in the ':'-separated search path, or an
// empty path. A name with a '/' is taken as a path and only checked.
std::filesystem::path find_in_path(const std::string& program, const std::string& search_path);
std::filesystem::path find_in_path(const std::string& program);  // $PATH

// Runs argv to completion (own process group, reaped) and returns its output,
// stdout and stderr together; "" when it cannot run or fails. For version
// strings and the like, small outputs that go into the result file's config.
// scratch_dir holds the output file meanwhile.
std::string command_output(const std::vector<std::string>& argv,
                           const std::filesystem::path& scratch_dir);
std::string first_line(const std::string& text);

// The environment every compile runs in, so that two runs (and two machines)
// build the same thing the same way: C locale (compiler messages, sort
// orders), no ccache (it would turn the compile into cache lookups), no
// inherited MAKEFLAGS (a parent make's -j or jobserver would change the
// parallelism), and kbuild's timestamp, user and host fixed.
std::vector<std::string> fixed_build_environment();

// Empties (or creates) a log before a run, so that the log always holds the
// latest run's output and its tail is that run's failure, never an older one.
void reset_log(const std::filesystem::path& log);

}  // namespace contest
