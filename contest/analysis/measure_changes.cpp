// What else changed between two kernels under a load. The compile's own
// counts (its faults and context switches, its perf events) are taken per
// compile: every run does the same work, so a count per run is a count per
// unit of work, and dividing it by a wall time that other work on the machine
// stretched would hide a doubled count behind the noise of that time. Counts
// of the machine as a whole (vmstat, the disk, the load's work) are taken per
// second of the window they were counted over, as a longer window counts more
// of them. Percentages and sizes are taken as recorded.
#include "contest/analysis/measure_changes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "contest/analysis/ratio.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// What the measures mean, in words that finish "on new, ... was 2.30x base's".
struct KnownMeasure {
    const char* measure;
    const char* meaning;
};

constexpr KnownMeasure kKnownMeasures[] = {
    {"user_s", "the compile's user CPU time"},
    {"sys_s", "the compile's system (kernel) CPU time"},
    {"cpu_pct", "the compile's CPU use"},
    {"max_rss_kib", "the compile's largest resident memory"},
    {"minor_faults", "the compile's count of minor page faults"},
    {"major_faults", "the compile's count of major page faults (read from disk)"},
    {"voluntary_switches", "the compile's count of voluntary context switches (it waited)"},
    {"involuntary_switches", "the compile's count of involuntary context switches (preempted)"},
    {"load_units_per_s", "the load's work done per second"},
    {"load_cpu_pct", "the load's CPU use"},
    {"others_cpu_pct", "CPU used by other work on the machine"},
    {"steal_pct", "CPU stolen by the hypervisor"},
    {"perf_context_switches", "the compile's count of context switches (perf)"},
    {"perf_cpu_migrations", "the compile's count of moves between CPUs (perf)"},
    {"perf_page_faults", "the compile's count of page faults (perf)"},
    {"perf_ipc", "the compile's instructions per cycle (perf)"},
    {"perf_cache_miss_rate", "the compile's cache miss rate (perf)"},
    {"perf_branch_miss_rate", "the compile's branch miss rate (perf)"},
    {"psi_cpu_some_pct", "the time some task waited for a CPU (PSI cpu some)"},
    {"psi_cpu_full_pct", "the time every task waited for a CPU (PSI cpu full)"},
    {"psi_io_some_pct", "the time some task was stalled on I/O (PSI io some)"},
    {"psi_io_full_pct", "the time every task was stalled on I/O (PSI io full)"},
    {"psi_memory_some_pct", "the time some task was stalled on memory (PSI memory some)"},
    {"psi_memory_full_pct", "the time every task was stalled on memory (PSI memory full)"},
    {"disk_read_bytes_per_s", "the rate of bytes read from the disk"},
    {"disk_written_bytes_per_s", "the rate of bytes written to the disk"},
    {"vmstat_pgfault_per_s", "the machine's rate of page faults (vmstat pgfault)"},
    {"vmstat_pgmajfault_per_s", "the machine's rate of major page faults (vmstat pgmajfault)"},
    {"vmstat_pswpin_per_s", "the rate of pages swapped in (vmstat pswpin)"},
    {"vmstat_pswpout_per_s", "the rate of pages swapped out (vmstat pswpout)"},
    {"vmstat_pgscan_kswapd_per_s", "the rate of pages scanned by kswapd (vmstat pgscan_kswapd)"},
    {"vmstat_pgscan_direct_per_s",
     "the rate of pages scanned in direct reclaim (vmstat pgscan_direct)"},
    {"vmstat_allocstall_normal_per_s",
     "the rate of allocations stalled for reclaim (vmstat allocstall_normal)"},
    {"vmstat_allocstall_movable_per_s",
     "the rate of allocations stalled for reclaim (vmstat allocstall_movable)"},
    {"vmstat_compact_stall_per_s", "the rate of allocations stalled for compaction"},
    {"vmstat_compact_fail_per_s", "the rate of failed compactions"},
    {"vmstat_thp_fault_alloc_per_s",
     "the rate of page faults served with a transparent huge page (vmstat thp_fault_alloc)"},
    {"vmstat_thp_fault_fallback_per_s",
     "the rate of huge page faults that fell back to small pages (vmstat thp_fault_fallback)"},
    {"vmstat_pgsteal_kswapd_per_s",
     "the rate of pages reclaimed by kswapd (vmstat pgsteal_kswapd)"},
    {"vmstat_pgsteal_direct_per_s",
     "the rate of pages reclaimed in direct reclaim (vmstat pgsteal_direct)"},
    {"vmstat_pgsteal_file_per_s", "the rate of page cache pages reclaimed (vmstat pgsteal_file)"},
    {"vmstat_pgsteal_anon_per_s", "the rate of anonymous pages reclaimed (vmstat pgsteal_anon)"},
    {"vmstat_workingset_refault_anon_per_s",
     "the rate of anonymous pages read back soon after eviction (vmstat workingset_refault_anon)"},
    {"vmstat_workingset_refault_file_per_s",
     "the rate of file pages read back soon after eviction (vmstat workingset_refault_file)"},
    {"vmstat_oom_kill_per_s", "the rate of OOM kills"},
};

const char* meaning_of(const std::string& measure) {
    for (const auto& k : kKnownMeasures)
        if (measure == k.measure) return k.meaning;
    if (measure.starts_with("latency_") && measure.ends_with("_p99_us"))
        return "the probe's 99th percentile latency";
    if (measure.starts_with("latency_") && measure.ends_with("_missed_pct"))
        return "the share of the probe's deadlines missed";
    return "";
}

using Measures = std::map<std::string, double>;

void put(Measures& m, const std::string& name, const nlohmann::json& v, double per = 1) {
    if (v.is_number() && std::isfinite(v.get<double>()) && per > 0) m[name] = v.get<double>() / per;
}

// A name as a measure's: "context-switches" -> "context_switches".
std::string measure_name(std::string s) {
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

void timeline_measures(Measures& m, const nlohmann::json& timeline) {
    if (!timeline.is_object() || !timeline.contains("totals")) return;
    const auto& totals = timeline["totals"];
    if (!totals.is_object()) return;
    const double window = totals.value("window_s", 0.0);
    if (const auto psi = totals.find("psi");
        psi != totals.end() && psi->is_object() && psi->value("available", false))
        for (const char* resource : {"cpu", "io", "memory"})
            if (const auto r = psi->find(resource); r != psi->end() && r->is_object())
                for (const char* kind : {"some_pct", "full_pct"})
                    if (r->contains(kind))
                        put(m, std::string("psi_") + resource + "_" + kind, (*r)[kind]);
    if (const auto vm = totals.find("vmstat"); vm != totals.end() && vm->is_object())
        for (const auto& [k, v] : vm->items()) put(m, "vmstat_" + k + "_per_s", v, window);
    if (const auto disk = totals.find("disk"); disk != totals.end() && disk->is_object())
        for (const char* k : {"read_bytes", "written_bytes"})
            if (disk->contains(k)) put(m, std::string("disk_") + k + "_per_s", (*disk)[k], window);
    if (const auto cpu = totals.find("cpu_pct_of_machine"); cpu != totals.end() && cpu->is_object())
        for (const auto& [k, v] : cpu->items()) put(m, "machine_cpu_" + k + "_pct", v);
}

void perf_measures(Measures& m, const nlohmann::json& perf) {
    if (!perf.is_object()) return;
    for (const auto& [k, v] : perf.items()) {
        if (k == "events" && v.is_object()) {
            for (const auto& [event, e] : v.items())
                if (e.is_object() && e.value("counted", false) && e.contains("value"))
                    put(m, "perf_" + measure_name(event), e["value"]);
        } else if (v.is_object() && v.contains("value")) {
            put(m, "perf_" + measure_name(k), v["value"]);
        }
    }
}

void latency_measures(Measures& m, const nlohmann::json& latency) {
    if (!latency.is_object()) return;
    for (const auto& [probe, p] : latency.items()) {
        if (!p.is_object()) continue;
        const auto l = p.find("latency");
        if (l != p.end() && l->is_object() && l->contains("percentiles_ns") &&
            (*l)["percentiles_ns"].contains("99.00"))
            put(m, "latency_" + probe + "_p99_us", (*l)["percentiles_ns"]["99.00"], 1000);
        if (p.contains("missed_pct")) put(m, "latency_" + probe + "_missed_pct", p["missed_pct"]);
    }
}

Measures measures_of(const RunRecord& r) {
    Measures m;
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
    perf_measures(m, r.perf);
    timeline_measures(m, r.timeline);
    latency_measures(m, r.latency);
    return m;
}

// One label's values of every measure under a load, by the round they ran in.
std::map<std::string, std::vector<RoundValue>> values_of(const Cell& cell) {
    std::map<std::string, std::vector<RoundValue>> out;
    for (const auto& sr : cell.runs)
        if (sr.run.ok())
            for (const auto& [name, value] : measures_of(sr.run))
                out[name].push_back({sr.vary_group, sr.round, value});
    return out;
}

std::vector<double> plain(const std::vector<RoundValue>& v) {
    std::vector<double> out;
    for (const auto& x : v) out.push_back(x.value);
    return out;
}

double relative_change_pct(double base, double fresh) {
    if (base == 0) return fresh == 0 ? std::nan("") : std::copysign(INFINITY, fresh);
    return (fresh / base - 1) * 100;
}

// Time's machinery on one measure: paired by round where the labels share
// rounds of one --vary run, Welch otherwise. The values are not logs (a count
// may be zero), so the paired t is on plain differences.
std::optional<Test> test_measure(const std::string& name, const std::vector<RoundValue>& base,
                                 const std::vector<RoundValue>& fresh, double base_mean,
                                 double new_mean) {
    const auto a = plain(fresh), b = plain(base);
    if (a.size() < kMinRunsForSignificance || b.size() < kMinRunsForSignificance)
        return std::nullopt;
    Test t;
    if (auto paired = paired_between_labels(fresh, base, name)) {
        t = *paired;
        t.method = "paired t by round";
    } else {
        const auto w = stats::welch_t_test(a, b);
        if (!w) return std::nullopt;
        t.what = name;
        t.method = "Welch t";
        t.statistic = w->t;
        t.df = w->df;
        t.p = w->p;
    }
    t.effect_pct = relative_change_pct(base_mean, new_mean);
    return t;
}

// How far apart the means are, for the ranking: up by 2x and down by half
// weigh the same; from or to zero weighs most.
double distance(const MeasureChange& c) {
    if (c.base_mean == 0 || c.new_mean == 0 || c.new_mean / c.base_mean <= 0)
        return std::numeric_limits<double>::infinity();
    return std::fabs(std::log(c.new_mean / c.base_mean));
}

LoadMeasureChanges changes_under(const ReportModel& model, const Cell& base, const Cell& fresh) {
    LoadMeasureChanges out;
    out.load = base.load;
    const auto b = values_of(base), f = values_of(fresh);
    std::vector<MeasureChange> tested;
    for (const auto& [name, values] : b)
        if (!f.count(name)) out.only_base.push_back(name);
    for (const auto& [name, values] : f) {
        const auto other = b.find(name);
        if (other == b.end()) {
            out.only_new.push_back(name);
            continue;
        }
        const double base_mean = stats::summarize(plain(other->second)).mean;
        const double new_mean = stats::summarize(plain(values)).mean;
        auto t = test_measure(name, other->second, values, base_mean, new_mean);
        if (!t) continue;
        tested.push_back({name, meaning_of(name), base_mean, new_mean, *t});
    }
    std::vector<double> p;
    for (const auto& c : tested) p.push_back(c.test.p);
    const auto adjusted = stats::adjust_p_values(p, model.correction);
    for (std::size_t i = 0; i < tested.size(); ++i) {
        Test& t = tested[i].test;
        t.p_adjusted = adjusted[i];
        if (std::isfinite(t.p)) ++out.tested;
        if (std::find(out.methods.begin(), out.methods.end(), t.method) == out.methods.end())
            out.methods.push_back(t.method);
        t.significant = t.p_adjusted < model.alpha && !std::isnan(t.effect_pct) &&
                        std::fabs(t.effect_pct) >= model.min_effect_pct;
        if (t.significant) out.changed.push_back(tested[i]);
    }
    std::stable_sort(
        out.changed.begin(), out.changed.end(),
        [](const MeasureChange& x, const MeasureChange& y) { return distance(x) > distance(y); });
    return out;
}

std::string adjusted_p_text(const Test& t) {
    const std::string p = format_p(t.p_adjusted);
    return p[0] == '<' ? "p" + p : "p=" + p;
}

}  // namespace

std::vector<LoadMeasureChanges> measure_changes(const ReportModel& model, const std::string& base,
                                                const std::string& fresh) {
    std::vector<LoadMeasureChanges> out;
    for (const auto& block : model.blocks) {
        const Cell* b = model.find_cell(block.load, base);
        const Cell* f = model.find_cell(block.load, fresh);
        if (!b || !f || b->time.n < kMinRunsForSignificance || f->time.n < kMinRunsForSignificance)
            continue;
        out.push_back(changes_under(model, *b, *f));
    }
    return out;
}

std::string measure_change_line(const MeasureChange& c) {
    const std::string& what = c.meaning.empty() ? c.measure : c.meaning;
    if (c.base_mean == 0) return "on new, " + what + " rose from none on base";
    if (c.new_mean == 0) return "on new, " + what + " fell to none";
    return "on new, " + what + " was " + fixed(c.new_mean / c.base_mean, 2) + "x base's";
}

// What else changed: every other measure both sides recorded, per load.
// Four significant digits, without an exponent for the large counts.
std::string measure_figure(double v) {
    if (std::fabs(v) >= 1e4) return fixed(v, 0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string measure_changes_heading(const std::vector<LoadMeasureChanges>& changes,
                                    const ReportModel& model) {
    std::vector<std::string> methods;
    for (const auto& c : changes)
        for (const auto& m : c.methods)
            if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    std::string tests = methods.empty() ? std::string("-") : methods.front();
    for (std::size_t i = 1; i < methods.size(); ++i) tests += " or " + methods[i];
    return "What else changed (the other measures both kernels' runs recorded: the compile's "
           "counts per compile, the machine's per second; base -> new; p: " +
           tests + ", adjusted over each load's measures, " +
           stats::correction_description(model.correction) +
           "; largest change first). A measure that changed with the kernel is not thereby "
           "why the time changed.";
}

std::string measure_changes_count(const LoadMeasureChanges& c) {
    if (c.changed.empty())
        return "nothing changed beyond noise (" + std::to_string(c.tested) + " measures tested)";
    return std::to_string(c.changed.size()) + " of " + std::to_string(c.tested) +
           " measures changed beyond noise";
}

std::string measure_changes_text(const std::vector<LoadMeasureChanges>& changes,
                                 const ReportModel& model) {
    if (changes.empty()) return "";
    std::string out = "\n" + measure_changes_heading(changes, model) + "\n";
    for (const auto& c : changes) {
        out += c.load + ": " + measure_changes_count(c) + "\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& m : c.changed)
            rows.push_back({"  " + m.measure,
                            measure_figure(m.base_mean) + " -> " + measure_figure(m.new_mean),
                            signed_percent(m.test.effect_pct), adjusted_p_text(m.test)});
        const auto lines = align_columns(rows, {false, true, true, false});
        for (std::size_t i = 0; i < lines.size(); ++i)
            out += lines[i] + "\n    " + measure_change_line(c.changed[i]) + "\n";
        if (!c.only_base.empty())
            out += "  recorded only on base: " + join(c.only_base, ", ") + "\n";
        if (!c.only_new.empty()) out += "  recorded only on new: " + join(c.only_new, ", ") + "\n";
    }
    return out;
}

}  // namespace contest
