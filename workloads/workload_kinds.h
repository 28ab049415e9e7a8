#pragma once
// The workload kinds make_workload knows (workload_registry.h).
// Each kind lives in its own file: synthetic.cpp, command.cpp, kernel.cpp.
#include <filesystem>
#include <memory>

#include "workloads/workload.h"

namespace contest {

std::unique_ptr<Workload> make_synthetic_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_command_workload(const WorkloadOptions& options);
std::unique_ptr<Workload> make_kernel_workload(const WorkloadOptions& options);

}  // namespace contest
