#pragma once
// The /proc files that more than one part of contest reads, each parsed
// here and nowhere else: /proc/meminfo (the loads' sizes, the fingerprint,
// the timeline), the cpu line of /proc/stat (machine CPU, the timeline) and
// /proc/PID/stat (process groups, liveness).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace contest {

// /proc/meminfo's "Key: N kB" lines as {"MemTotal": N, ...}, N in KiB (the
// HugePages_ counts as they are). Empty when there are none.
using Meminfo = std::map<std::string, std::uint64_t>;
Meminfo parse_meminfo_text(const std::string& text);
// This machine's, now; empty when /proc/meminfo can't be read.
Meminfo read_meminfo_kib();

// What the loads size themselves by and the fingerprint records.
struct MemInfo {
    std::uint64_t total = 0, available = 0, swap_total = 0, swap_free = 0;  // bytes
};
// This machine's, now; zeros for what can't be read.
MemInfo read_meminfo();

// The aggregate "cpu" line of /proc/stat, in clock ticks since boot.
struct CpuTicks {
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
    std::uint64_t steal = 0;  // 0 on kernels that have no such field
};
// nullopt when the text has no "cpu" line with at least its first seven fields.
std::optional<CpuTicks> parse_proc_stat_cpu(const std::string& text);
// This machine, now; nullopt when /proc/stat can't be read.
std::optional<CpuTicks> read_proc_stat_cpu();

// /proc/stat's procs_running: tasks runnable now, the reader among them.
// nullopt when the text has no such line.
std::optional<unsigned> parse_procs_running(const std::string& text);
// This machine's, now.
std::optional<unsigned> read_procs_running();

// The fields of /proc/PID/stat that contest uses.
struct ProcessStat {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgrp = 0;
    char state = '?';
    unsigned long long cpu_ticks = 0;   // utime + stime + cutime + cstime
    unsigned long long start_time = 0;  // clock ticks since boot (field 22)
};
// From the text of pid's stat file; nullopt when it is not one.
std::optional<ProcessStat> parse_process_stat(pid_t pid, const char* text);
// pid's, now; nullopt when there is no such process. Cheap (one read), as
// it is called for every process of /proc while the workload runs.
std::optional<ProcessStat> read_process_stat(pid_t pid);

}  // namespace contest
