#include "contest/observe/machine_cpu.h"

#include <unistd.h>

#include <algorithm>

#include "contest/sys/proc_files.h"

namespace contest {

namespace {

MachineCpu machine_cpu_of(const CpuTicks& t) {
    const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
    MachineCpu m;
    m.busy_s = static_cast<double>(t.user + t.nice + t.system + t.irq + t.softirq) * tick;
    m.steal_s = static_cast<double>(t.steal) * tick;
    return m;
}

}  // namespace

std::optional<MachineCpu> parse_proc_stat(const std::string& text) {
    auto t = parse_proc_stat_cpu(text);
    if (!t) return std::nullopt;
    return machine_cpu_of(*t);
}

std::optional<MachineCpu> read_machine_cpu() {
    auto t = read_proc_stat_cpu();
    if (!t) return std::nullopt;
    return machine_cpu_of(*t);
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

void MachineCpuObserver::record(RunRecord& rec) {
    if (!start_ || !end_) return;
    double contest_side_pct = 0;
    for (const WindowObserver* o : contest_side_) contest_side_pct += o->own_cpu_pct();
    OutsideCpu o = outside_cpu(*start_, *end_, rec.wall_s, rec.cpu_pct, contest_side_pct);
    rec.others_cpu_pct = o.others_pct;
    rec.steal_pct = o.steal_pct;
}

}  // namespace contest
