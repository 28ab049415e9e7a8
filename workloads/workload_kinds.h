#pragma once
// The workload kinds make_workload knows, and the log helper they share.
// Each kind lives in its own file: synthetic.cpp, command.cpp, kernel.cpp.
#include <filesystem>
#include <memory>

#include "workloads/workload.h"

namespace contest {

std::unique_ptr<Workload> make_synthetic_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_command_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_kernel_workload(const WorkloadOptions& options);

// Empties (or creates) a log before a run, so that the log always holds the
// latest run's output and its tail is that run's failure, never an older one.
void reset_log(const std::filesystem::path& log);

}  // namespace contest
