#pragma once
// The system fingerprint recorded in every result file (`contest sysinfo`).
#include <nlohmann/json.hpp>

#include "contest/sys/machine.h"  // online_cpus, which the fingerprint records

namespace contest {

// Kernel release/version, CPU model and count, memory, swap, cpufreq
// governor, hostname, and the tools contest uses; under "kernel", the
// kernel's build and settings (.config, HZ, preemption, mitigations, the
// workdir's file system...: kernel_facts(workdir)).
nlohmann::json system_fingerprint(const std::string& workdir);

}  // namespace contest
