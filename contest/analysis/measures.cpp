#include "contest/analysis/measures.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "contest/analysis/latency_model.h"

namespace contest {

namespace {

using nlohmann::json;
using K = MeasureKind;
using S = MeasureSource;

// Exact names first; the families (a name in angle brackets) after them, so
// a known member of a family has its own meaning.
constexpr Measure kMeasures[] = {
    {"user_s", K::time, "s", "the compile's user CPU time", S::record},
    {"sys_s", K::time, "s", "the compile's system (kernel) CPU time", S::record},
    {"cpu_pct", K::percentage, "%", "the compile's CPU use", S::record},
    {"max_rss_kib", K::size, "KiB", "the compile's largest resident memory", S::record},
    {"minor_faults", K::count, "", "the compile's count of minor page faults", S::record},
    {"major_faults", K::count, "", "the compile's count of major page faults (read from disk)",
     S::record},
    {"voluntary_switches", K::count, "",
     "the compile's count of voluntary context switches (it waited)", S::record},
    {"involuntary_switches", K::count, "",
     "the compile's count of involuntary context switches (preempted)", S::record},
    {"load_units_per_s", K::rate, "/s", "the load's work done per second", S::record},
    {"load_cpu_pct", K::percentage, "%", "the load's CPU use", S::record},
    {"others_cpu_pct", K::percentage, "%", "CPU used by other work on the machine", S::record},
    {"steal_pct", K::percentage, "%", "CPU stolen by the hypervisor", S::record},
    {"unit_cpu_us", K::time, "us",
     "the CPU time of contest's fixed unit of work (the machine's speed)", S::record},
    {"perf_task_clock", K::time, "ns", "the compile's CPU time (perf task-clock)", S::perf_event,
     "task-clock"},
    {"perf_context_switches", K::count, "", "the compile's count of context switches (perf)",
     S::perf_event, "context-switches"},
    {"perf_cpu_migrations", K::count, "", "the compile's count of moves between CPUs (perf)",
     S::perf_event, "cpu-migrations"},
    {"perf_page_faults", K::count, "", "the compile's count of page faults (perf)", S::perf_event,
     "page-faults"},
    {"perf_major_faults", K::count, "", "the compile's count of major page faults (perf)",
     S::perf_event, "major-faults"},
    {"perf_ipc", K::ratio, "", "the compile's instructions per cycle (perf)", S::perf_derived,
     "ipc", "cycles"},
    {"perf_cache_miss_rate", K::ratio, "", "the compile's cache miss rate (perf)", S::perf_derived,
     "cache_miss_rate", "cache-misses"},
    {"perf_branch_miss_rate", K::ratio, "", "the compile's branch miss rate (perf)",
     S::perf_derived, "branch_miss_rate", "branch-misses"},
    {"psi_cpu_some_pct", K::percentage, "%", "the time some task waited for a CPU (PSI cpu some)",
     S::psi, "cpu/some_pct"},
    {"psi_cpu_full_pct", K::percentage, "%", "the time every task waited for a CPU (PSI cpu full)",
     S::psi, "cpu/full_pct"},
    {"psi_io_some_pct", K::percentage, "%", "the time some task was stalled on I/O (PSI io some)",
     S::psi, "io/some_pct"},
    {"psi_io_full_pct", K::percentage, "%", "the time every task was stalled on I/O (PSI io full)",
     S::psi, "io/full_pct"},
    {"psi_memory_some_pct", K::percentage, "%",
     "the time some task was stalled on memory (PSI memory some)", S::psi, "memory/some_pct"},
    {"psi_memory_full_pct", K::percentage, "%",
     "the time every task was stalled on memory (PSI memory full)", S::psi, "memory/full_pct"},
    {"disk_read_bytes_per_s", K::rate, "B/s", "the rate of bytes read from the disk", S::disk,
     "read_bytes"},
    {"disk_written_bytes_per_s", K::rate, "B/s", "the rate of bytes written to the disk", S::disk,
     "written_bytes"},
    {"vmstat_pgfault_per_s", K::rate, "/s", "the machine's rate of page faults (vmstat pgfault)",
     S::vmstat, "pgfault"},
    {"vmstat_pgmajfault_per_s", K::rate, "/s",
     "the machine's rate of major page faults (vmstat pgmajfault)", S::vmstat, "pgmajfault"},
    {"vmstat_pswpin_per_s", K::rate, "/s", "the rate of pages swapped in (vmstat pswpin)",
     S::vmstat, "pswpin"},
    {"vmstat_pswpout_per_s", K::rate, "/s", "the rate of pages swapped out (vmstat pswpout)",
     S::vmstat, "pswpout"},
    {"vmstat_pgscan_kswapd_per_s", K::rate, "/s",
     "the rate of pages scanned by kswapd (vmstat pgscan_kswapd)", S::vmstat, "pgscan_kswapd"},
    {"vmstat_pgscan_direct_per_s", K::rate, "/s",
     "the rate of pages scanned in direct reclaim (vmstat pgscan_direct)", S::vmstat,
     "pgscan_direct"},
    {"vmstat_allocstall_normal_per_s", K::rate, "/s",
     "the rate of allocations stalled for reclaim (vmstat allocstall_normal)", S::vmstat,
     "allocstall_normal"},
    {"vmstat_allocstall_movable_per_s", K::rate, "/s",
     "the rate of allocations stalled for reclaim (vmstat allocstall_movable)", S::vmstat,
     "allocstall_movable"},
    {"vmstat_compact_stall_per_s", K::rate, "/s", "the rate of allocations stalled for compaction",
     S::vmstat, "compact_stall"},
    {"vmstat_compact_fail_per_s", K::rate, "/s", "the rate of failed compactions", S::vmstat,
     "compact_fail"},
    {"vmstat_thp_fault_alloc_per_s", K::rate, "/s",
     "the rate of page faults served with a transparent huge page (vmstat thp_fault_alloc)",
     S::vmstat, "thp_fault_alloc"},
    {"vmstat_thp_fault_fallback_per_s", K::rate, "/s",
     "the rate of huge page faults that fell back to small pages (vmstat thp_fault_fallback)",
     S::vmstat, "thp_fault_fallback"},
    {"vmstat_pgsteal_kswapd_per_s", K::rate, "/s",
     "the rate of pages reclaimed by kswapd (vmstat pgsteal_kswapd)", S::vmstat, "pgsteal_kswapd"},
    {"vmstat_pgsteal_direct_per_s", K::rate, "/s",
     "the rate of pages reclaimed in direct reclaim (vmstat pgsteal_direct)", S::vmstat,
     "pgsteal_direct"},
    {"vmstat_pgsteal_file_per_s", K::rate, "/s",
     "the rate of page cache pages reclaimed (vmstat pgsteal_file)", S::vmstat, "pgsteal_file"},
    {"vmstat_pgsteal_anon_per_s", K::rate, "/s",
     "the rate of anonymous pages reclaimed (vmstat pgsteal_anon)", S::vmstat, "pgsteal_anon"},
    {"vmstat_workingset_refault_anon_per_s", K::rate, "/s",
     "the rate of anonymous pages read back soon after eviction (vmstat workingset_refault_anon)",
     S::vmstat, "workingset_refault_anon"},
    {"vmstat_workingset_refault_file_per_s", K::rate, "/s",
     "the rate of file pages read back soon after eviction (vmstat workingset_refault_file)",
     S::vmstat, "workingset_refault_file"},
    {"vmstat_oom_kill_per_s", K::rate, "/s", "the rate of OOM kills", S::vmstat, "oom_kill"},
    // The families: every other counter, event and probe a run recorded.
    {"vmstat_<counter>_per_s", K::rate, "/s", "", S::vmstat},
    {"perf_<event>", K::count, "", "", S::perf_event},
    {"machine_cpu_<what>_pct", K::percentage, "%", "", S::machine_cpu},
    {"latency_<probe>_p99_us", K::time, "us", "the probe's 99th percentile latency", S::latency},
    {"latency_<probe>_missed_pct", K::percentage, "%", "the share of the probe's deadlines missed",
     S::latency},
    // --latency-why: the share of a run's late time each cause held.
    {"latency_<probe>_late_workload_pct", K::percentage, "%",
     "the share of the probe's late time the workload's tasks held", S::latency},
    {"latency_<probe>_late_load_pct", K::percentage, "%",
     "the share of the probe's late time the load's tasks held", S::latency},
    {"latency_<probe>_late_kernel_thread_pct", K::percentage, "%",
     "the share of the probe's late time kernel threads held", S::latency},
    {"latency_<probe>_late_contest_pct", K::percentage, "%",
     "the share of the probe's late time contest's own tasks held", S::latency},
    {"latency_<probe>_late_other_pct", K::percentage, "%",
     "the share of the probe's late time other processes held", S::latency},
    {"latency_<probe>_late_idle_pct", K::percentage, "%",
     "the share of the probe's late time its CPU was idle (waking up)", S::latency},
    {"latency_<probe>_late_interrupts_pct", K::percentage, "%",
     "the share of the probe's late time hard interrupts took", S::latency},
    {"latency_<probe>_late_softirqs_pct", K::percentage, "%",
     "the share of the probe's late time softirqs took", S::latency},
    {"latency_<probe>_late_timer_expiry_pct", K::percentage, "%",
     "the share of the probe's late time its timer took to expire", S::latency},
    {"latency_<probe>_late_unexplained_pct", K::percentage, "%",
     "the share of the probe's late time the trace could not explain", S::latency},
};

// Whether `name` is the measure or a member of its family.
bool is_of(std::string_view name, const Measure& m) {
    const auto open = m.name.find('<');
    if (open == std::string_view::npos) return name == m.name;
    const std::string_view prefix = m.name.substr(0, open);
    const std::string_view suffix = m.name.substr(m.name.find('>') + 1);
    return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
           name.ends_with(suffix);
}

using Measures = std::map<std::string, double>;

void put(Measures& m, const std::string& name, const json& v, double per = 1) {
    if (v.is_number() && std::isfinite(v.get<double>()) && per > 0) m[name] = v.get<double>() / per;
}

// A name as a measure's: "context-switches" -> "context_switches".
std::string measure_name(std::string s) {
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

// The object at `key` of `j`, or nullptr.
const json* object_at(const json& j, std::string_view key) {
    if (!j.is_object()) return nullptr;
    const auto it = j.find(std::string(key));
    return it != j.end() && it->is_object() ? &*it : nullptr;
}

const json* timeline_totals(const RunRecord& r) {
    return object_at(r.timeline, "totals");
}

const json* psi_of(const RunRecord& r) {
    const json* totals = timeline_totals(r);
    return totals ? object_at(*totals, "psi") : nullptr;
}

const json* vmstat_of(const RunRecord& r) {
    const json* totals = timeline_totals(r);
    return totals ? object_at(*totals, "vmstat") : nullptr;
}

const json* perf_event_of(const RunRecord& r, std::string_view event) {
    const json* events = object_at(r.perf, "events");
    return events ? object_at(*events, event) : nullptr;
}

bool counted(const json& event) {
    return event.value("counted", false) && event.contains("value");
}

// "io/some_pct" as its resource and kind.
std::pair<std::string, std::string> psi_key(std::string_view key) {
    const auto slash = key.find('/');
    return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

void record_measures(Measures& m, const RunRecord& r) {
    put(m, "user_s", r.user_s);
    put(m, "sys_s", r.sys_s);
    put(m, "cpu_pct", r.cpu_pct);
    put(m, "max_rss_kib", static_cast<double>(r.max_rss_kib));
    put(m, "minor_faults", static_cast<double>(r.minor_faults));
    put(m, "major_faults", static_cast<double>(r.major_faults));
    put(m, "voluntary_switches", static_cast<double>(r.voluntary_switches));
    put(m, "involuntary_switches", static_cast<double>(r.involuntary_switches));
    if (!r.load_unit.empty()) {
        put(m, "load_units_per_s", r.load_units, r.wall_s);
        put(m, "load_cpu_pct", r.load_cpu_pct);
    }
    if (r.others_cpu_pct) put(m, "others_cpu_pct", *r.others_cpu_pct);
    if (r.steal_pct) put(m, "steal_pct", *r.steal_pct);
    if (r.unit_cpu_us) put(m, "unit_cpu_us", *r.unit_cpu_us);
}

void timeline_measures(Measures& m, const RunRecord& r) {
    const json* totals = timeline_totals(r);
    if (!totals) return;
    const double window = totals->value("window_s", 0.0);
    if (const json* psi = psi_of(r); psi && psi->value("available", false))
        for (const Measure& k : measures())
            if (k.source == S::psi) {
                const auto [resource, kind] = psi_key(k.key);
                if (const json* res = object_at(*psi, resource); res && res->contains(kind))
                    put(m, std::string(k.name), res->at(kind));
            }
    if (const json* vm = vmstat_of(r))
        for (const auto& [k, v] : vm->items()) put(m, "vmstat_" + k + "_per_s", v, window);
    if (const json* disk = object_at(*totals, "disk"))
        for (const Measure& k : measures())
            if (k.source == S::disk && disk->contains(std::string(k.key)))
                put(m, std::string(k.name), disk->at(std::string(k.key)), window);
    if (const json* cpu = object_at(*totals, "cpu_pct_of_machine"))
        for (const auto& [k, v] : cpu->items()) put(m, "machine_cpu_" + k + "_pct", v);
}

// Every counted event, and the derived rates: a number where both of a
// rate's events were counted, else {"value": null, "reason": ...}.
void perf_measures(Measures& m, const RunRecord& r) {
    if (!r.perf.is_object()) return;
    for (const auto& [k, v] : r.perf.items()) {
        if (k == "events" && v.is_object()) {
            for (const auto& [event, e] : v.items())
                if (e.is_object() && counted(e)) put(m, "perf_" + measure_name(event), e["value"]);
        } else if (v.is_number()) {
            put(m, "perf_" + measure_name(k), v);
        } else if (v.is_object() && v.contains("value")) {  // null: not counted
            put(m, "perf_" + measure_name(k), v["value"]);
        }
    }
}

// Each cause's share of a run's late time, every cause present (0 where it
// held nothing), so that the shares of two labels' runs are tested alike; a
// run without late time has no shares. The causes as late_causes_ns reads
// them: tasks by class, interrupts and softirqs each summed over their names.
void late_share_measures(Measures& m, const std::string& prefix, const json& why) {
    if (!why.is_object() || why.value("recorded", json(false)) != json(true)) return;
    const json* c = object_at(why, "by_cause");
    const json late = c ? c->value("late_ns", json(0)) : json(0);
    if (!late.is_number() || !(late.get<double>() > 0)) return;
    std::map<std::string, double> shares = {
        {"workload", 0},     {"load", 0},       {"kernel_thread", 0}, {"contest", 0},
        {"other", 0},        {"idle", 0},       {"interrupts", 0},    {"softirqs", 0},
        {"timer_expiry", 0}, {"unexplained", 0}};
    for (const auto& [cause, ns] : late_causes_ns(*c)) {
        std::string name = cause.starts_with("irq ")       ? "interrupts"
                           : cause.starts_with("softirq ") ? "softirqs"
                           : cause.ends_with(" tasks")     ? cause.substr(0, cause.size() - 6)
                                                           : cause;
        std::replace(name.begin(), name.end(), ' ', '_');
        if (auto it = shares.find(name); it != shares.end()) it->second += ns;
    }
    for (const auto& [name, ns] : shares) m[prefix + name + "_pct"] = 100 * ns / late.get<double>();
}

void latency_measures(Measures& m, const RunRecord& r) {
    if (!r.latency.is_object()) return;
    for (const auto& [probe, p] : r.latency.items()) {
        if (!p.is_object()) continue;
        const json* l = object_at(p, "latency");
        if (const json* pct = l ? object_at(*l, "percentiles_ns") : nullptr;
            pct && pct->contains("99.00"))
            put(m, "latency_" + probe + "_p99_us", (*pct)["99.00"], 1000);
        if (p.contains("missed_pct")) put(m, "latency_" + probe + "_missed_pct", p["missed_pct"]);
        late_share_measures(m, "latency_" + probe + "_late_", p.value("why", json::object()));
    }
}

json perf_event_reading(const RunRecord& r, const Measure& m) {
    const json* e = perf_event_of(r, m.key);
    if (!e) return nullptr;
    if (counted(*e)) return (*e)["value"];
    return e->value("reason", std::string("never ran"));
}

// A number, or why not: the reason of the event it needs when that was not
// counted, else the rate's own.
json perf_derived_reading(const RunRecord& r, const Measure& m) {
    if (!r.perf.is_object()) return nullptr;
    const auto d = r.perf.find(std::string(m.key));
    if (d == r.perf.end()) return nullptr;
    if (d->is_number()) return *d;
    const json* e = perf_event_of(r, m.needs);
    if (e && !e->value("counted", false) && e->contains("reason"))
        return std::string(m.needs) + " " + (*e)["reason"].get<std::string>();
    return d->value("reason", std::string("not counted"));
}

json psi_reading(const RunRecord& r, const Measure& m) {
    const json* psi = psi_of(r);
    if (!psi) return nullptr;
    if (!psi->value("available", false)) return psi->value("reason", std::string("no PSI"));
    const auto [resource, kind] = psi_key(m.key);
    const json* res = object_at(*psi, resource);
    if (!res) return nullptr;
    const auto v = res->find(kind);
    return v != res->end() && v->is_number() ? *v : json();
}

}  // namespace

std::span<const Measure> measures() {
    return kMeasures;
}

const Measure* find_measure(std::string_view name) {
    for (const auto& m : kMeasures)
        if (is_of(name, m)) return &m;
    return nullptr;
}

const Measure& measure_named(std::string_view name) {
    for (const auto& m : kMeasures)
        if (m.name == name) return m;
    throw std::logic_error("no measure " + std::string(name) + " in the table");
}

std::map<std::string, double> run_measures(const RunRecord& run) {
    Measures m;
    record_measures(m, run);
    perf_measures(m, run);
    timeline_measures(m, run);
    latency_measures(m, run);
    return m;
}

json measure_reading(const RunRecord& run, const Measure& measure) {
    switch (measure.source) {
        case S::perf_event:
            return perf_event_reading(run, measure);
        case S::perf_derived:
            return perf_derived_reading(run, measure);
        case S::psi:
            return psi_reading(run, measure);
        default:
            throw std::logic_error(std::string(measure.name) + " is read by run_measures only");
    }
}

json vmstat_reading(const RunRecord& run, std::span<const std::string> counters) {
    const json* vm = vmstat_of(run);
    if (!vm) return nullptr;
    if (vm->contains("reason")) return (*vm)["reason"];
    double sum = 0;
    bool any = false;
    for (const auto& n : counters)
        if (auto it = vm->find(n); it != vm->end() && it->is_number()) {
            sum += it->get<double>();
            any = true;
        }
    return any ? json(sum) : json();
}

}  // namespace contest
