#include "contest/sys/proc_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "contest/sys/text_file.h"
#include "contest/sys/unique_fd.h"

namespace contest {

Meminfo parse_meminfo_text(const std::string& text) {
    Meminfo m;
    std::istringstream in(text);
    std::string key;
    std::uint64_t value;
    std::string unit;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key.ends_with(':')) key.pop_back();
        m[key] = value;
    }
    return m;
}

Meminfo read_meminfo_kib() {
    auto text = read_text_file("/proc/meminfo");
    return text ? parse_meminfo_text(*text) : Meminfo{};
}

MemInfo read_meminfo() {
    const Meminfo kib = read_meminfo_kib();
    auto bytes = [&kib](const char* key) {
        auto it = kib.find(key);
        return it == kib.end() ? std::uint64_t{0} : it->second * 1024;
    };
    return MemInfo{bytes("MemTotal"), bytes("MemAvailable"), bytes("SwapTotal"), bytes("SwapFree")};
}

namespace {

// The words after `name` on /proc/stat's first line that starts with it.
std::optional<std::istringstream> stat_line(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string first;
        if (words >> first && first == name) return words;
    }
    return std::nullopt;
}

}  // namespace

std::optional<CpuTicks> parse_proc_stat_cpu(const std::string& text) {
    auto words = stat_line(text, "cpu");
    if (!words) return std::nullopt;
    // user nice system idle iowait irq softirq steal (guest time is
    // already inside user and nice)
    CpuTicks t;
    if (!(*words >> t.user >> t.nice >> t.system >> t.idle >> t.iowait >> t.irq >> t.softirq))
        return std::nullopt;
    if (!(*words >> t.steal)) t.steal = 0;  // absent on very old kernels
    return t;
}

std::optional<CpuTicks> read_proc_stat_cpu() {
    auto text = read_text_file("/proc/stat");
    if (!text) return std::nullopt;
    return parse_proc_stat_cpu(*text);
}

std::optional<unsigned> parse_procs_running(const std::string& text) {
    auto words = stat_line(text, "procs_running");
    unsigned n = 0;
    if (!words || !(*words >> n)) return std::nullopt;
    return n;
}

std::optional<unsigned> read_procs_running() {
    auto text = read_text_file("/proc/stat");
    if (!text) return std::nullopt;
    return parse_procs_running(*text);
}

std::optional<ProcessStat> parse_process_stat(pid_t pid, const char* text) {
    // comm may hold spaces and parentheses: fields resume after the last ')'.
    const char* p = std::strrchr(text, ')');
    if (!p) return std::nullopt;
    ProcessStat st;
    st.pid = pid;
    int ppid = 0, pgrp = 0;
    unsigned long long utime = 0, stime = 0;
    long long cutime = 0, cstime = 0;
    int got =
        std::sscanf(p + 1,
                    " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld"
                    " %*d %*d %*d %*d %llu",
                    &st.state, &ppid, &pgrp, &utime, &stime, &cutime, &cstime, &st.start_time);
    if (got != 8) return std::nullopt;
    st.ppid = ppid;
    st.pgrp = pgrp;
    st.cpu_ticks = utime + stime + static_cast<unsigned long long>(cutime + cstime);
    return st;
}

std::optional<ProcessStat> read_process_stat(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    const UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) return std::nullopt;
    char buf[1024];
    const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
    if (n <= 0) return std::nullopt;
    buf[n] = '\0';
    return parse_process_stat(pid, buf);
}

}  // namespace contest
