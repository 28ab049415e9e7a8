#include "contest/observe/machine_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace contest {

std::optional<MachineCpu> parse_proc_stat(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string name;
        words >> name;
        if (name != "cpu") continue;
        // user nice system idle iowait irq softirq steal (guest time is
        // already inside user and nice)
        unsigned long long user, nice, system, idle, iowait, irq, softirq, steal = 0;
        if (!(words >> user >> nice >> system >> idle >> iowait >> irq >> softirq))
            return std::nullopt;
        words >> steal;  // absent on very old kernels
        const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
        MachineCpu m;
        m.busy_s = static_cast<double>(user + nice + system + irq + softirq) * tick;
        m.steal_s = static_cast<double>(steal) * tick;
        return m;
    }
    return std::nullopt;
}

std::optional<MachineCpu> read_machine_cpu() {
    std::ifstream in("/proc/stat");
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return parse_proc_stat(text.str());
}

OutsideCpu outside_cpu(const MachineCpu& start, const MachineCpu& end, double wall_s,
                       double workload_cpu_pct, double contest_side_cpu_pct) {
    OutsideCpu o;
    if (!(wall_s > 0)) return o;
    const double busy_pct = 100.0 * (end.busy_s - start.busy_s) / wall_s;
    // /proc/stat counts in ticks and rusage in microseconds: a few ticks'
    // difference must not read as negative work.
    o.others_pct = std::max(0.0, busy_pct - workload_cpu_pct - contest_side_cpu_pct);
    o.steal_pct = std::max(0.0, 100.0 * (end.steal_s - start.steal_s) / wall_s);
    return o;
}

}  // namespace contest
