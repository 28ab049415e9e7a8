#pragma once
// The system fingerprint recorded in every result file (`contest sysinfo`).
#include <nlohmann/json.hpp>

#include "contest/sys/machine.h"  // online_cpus, which the fingerprint records

namespace contest {

// Kernel release/version, CPU model and count, memory, swap, cpufreq
// governor, hostname, and the tools contest uses. The kernel's build and
// settings (.config, HZ, preemption, mitigations, the workdir's file
// system...) are kernel_facts(workdir), which callers add as "kernel".
nlohmann::json system_fingerprint();

}  // namespace contest
