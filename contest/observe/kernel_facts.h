#pragma once
// The kernel facts people compare before believing a kernel comparison: the
// .config's SHA-256 and the settings that move latency (HZ, preemption and
// PREEMPT_DYNAMIC's live mode, NO_HZ, clocksource), the compiler that built
// the kernel, CPU vulnerability mitigations, SMT, THP, swap, NUMA, cgroup
// version, and the workdir's file system, mount options and I/O scheduler.
// A fact that can't be read is {"reason": "..."}, never missing or empty.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

struct KernelConfigText {
    std::string text;    // the whole .config; empty when not found
    std::string source;  // "/proc/config.gz" or "/boot/config-<release>"
    std::string reason;  // why not found
};
// /proc/config.gz (the running kernel's own, CONFIG_IKCONFIG_PROC), else
// /boot/config-$(uname -r).
KernelConfigText read_kernel_config_text();
std::map<std::string, std::string> parse_kernel_config(const std::string& text);
// The build's preemption model from a parsed .config: rt, full, lazy,
// voluntary, none or unknown.
std::string preemption_model(const std::map<std::string, std::string>& cfg);

// "gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46" from /proc/version's text.
std::string kernel_compiler(const std::string& proc_version);
// The [chosen] word of a sysfs choice list: "always [madvise] never" -> "madvise".
std::string bracketed_choice(const std::string& text);

// Every fact above; `workdir` is where the workload runs (its device, not the root's).
nlohmann::json kernel_facts(const std::string& workdir);

}  // namespace contest
