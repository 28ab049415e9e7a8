#pragma once
// The system fingerprint recorded in every result file (`contest sysinfo`).
#include <cstdint>

#include <nlohmann/json.hpp>

#include "contest/sys/machine.h"  // online_cpus, which the fingerprint records

namespace contest {

struct MemInfo {
    std::uint64_t total = 0, available = 0, swap_total = 0, swap_free = 0;  // bytes
};
MemInfo read_meminfo();

// Kernel release/version, CONFIG_HZ and preemption model (from
// /proc/config.gz or /boot/config-*), CPU model and count, memory, swap,
// cpufreq governor, hostname, and the tools contest uses.
nlohmann::json system_fingerprint();

}  // namespace contest
