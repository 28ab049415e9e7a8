#include "contest/analysis/latency_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "contest/analysis/min_runs.h"
#include "contest/analysis/stats.h"
#include "contest/latency/probe_table.h"

namespace contest {

namespace {

using nlohmann::json;

double number_at(const json& j, const json::json_pointer& at) {
    return j.contains(at) && j.at(at).is_number() ? j.at(at).get<double>() : LatencyRow::kNone;
}

// A figure read from a file: `otherwise` where it is no number.
double number_or(const json& v, double otherwise = 0) {
    return v.is_number() ? v.get<double>() : otherwise;
}

double mean_of(const std::vector<double>& v) {
    std::vector<double> finite;
    for (double x : v)
        if (std::isfinite(x)) finite.push_back(x);
    return finite.empty() ? LatencyRow::kNone : stats::summarize(finite).mean;
}

// One row's runs as they are collected, before pooling.
struct Collected {
    LatencyRow row;
    std::map<std::int64_t, std::uint64_t> bins;
    bool every_run_has_bins = true;
    double min_ns = LatencyRow::kNone, max_ns = LatencyRow::kNone;
    std::uint64_t periods = 0, missed = 0;
    std::vector<double> p50, p999, got, wanted, probe_cpu, one_pct_low, nominal_fps;
};

}  // namespace

std::map<std::string, double> late_causes_ns(const json& by_cause) {
    std::map<std::string, double> out;
    if (!by_cause.is_object()) return out;
    const auto add_all = [&](const char* key, const std::string& prefix,
                             const std::string& suffix) {
        const json& m = by_cause.value(key, json::object());
        if (!m.is_object()) return;
        for (const auto& [name, ns] : m.items()) out[prefix + name + suffix] += number_or(ns);
    };
    add_all("tasks_by_class_ns", "", " tasks");
    add_all("interrupts_ns", "irq ", "");
    add_all("softirqs_ns", "softirq ", "");
    out["timer expiry"] += number_or(by_cause.value("timer_expiry_ns", json(0)));
    out["unexplained"] += number_or(by_cause.value("unexplained_ns", json(0)));
    return out;
}

namespace {

// A count read from a file: 0 where it is no whole number at or above 0.
std::uint64_t count_of(const json& o, const char* key) {
    if (!o.is_object() || !o.contains(key)) return 0;
    const json& n = o[key];
    return n.is_number_integer() && n >= 0 ? n.get<std::uint64_t>() : 0;
}

// A run's --latency-why split into the row's sums.
void add_why(LatencyRow& row, const json& why) {
    if (!why.is_object() || why.value("recorded", json(false)) != json(true)) return;
    const json& c = why.value("by_cause", json::object());
    if (!c.is_object()) return;
    ++row.why_runs;
    row.late_wakeups += count_of(why, "late_wakeups");
    row.late_in_trace += count_of(why, "in_trace");
    row.late_ns += number_or(c.value("late_ns", json(0)));
    for (const auto& [what, ns] : late_causes_ns(c)) row.late_by_cause_ns[what] += ns;
}

// The run's worst spike (its why's first: they are kept worst first), if
// it is later than the row's so far.
void add_worst_spike(LatencyRow& row, const json& why, int run_index) {
    if (!why.is_object() || why.value("recorded", json(false)) != json(true)) return;
    const json& worst = why.value("worst", json::array());
    if (!worst.is_array() || worst.empty() || !worst[0].is_object()) return;
    const json& w = worst[0];
    const auto text = [](const json& o, const char* key) {
        const json& v = o.value(key, json());
        return v.is_string() ? v.get<std::string>() : std::string();
    };
    // Read from a file: a figure past an int's range is no cpu or pid.
    const auto whole = [&](const json& v) {
        const double d = number_or(v, -1);
        return d >= 0 && d < 1e9 ? static_cast<long>(d) : -1L;
    };
    const double late = number_or(w.value("late_ns", json()));
    if (!(late > 0) || (row.worst_spike && row.worst_spike->late_ns >= late)) return;
    WorstSpike spike;
    spike.late_ns = late;
    spike.run_index = run_index;
    spike.cpu = static_cast<int>(whole(w.value("cpu", json())));
    const json& parts = w.value("timeline", json::array());
    if (parts.is_array())
        for (const auto& p : parts) {
            if (!p.is_object()) continue;
            SpikePart part;
            part.at_ns = number_or(p.value("at_ns", json()));
            part.ns = number_or(p.value("ns", json()));
            part.kind = text(p, "kind");
            part.name = text(p, "name");
            part.pid = whole(p.value("pid", json()));
            part.task_class = text(p, "class");
            part.parts = static_cast<std::size_t>(std::max(0L, whole(p.value("parts", json()))));
            if (part.ns > 0) spike.timeline.push_back(std::move(part));
        }
    row.worst_spike = std::move(spike);
}

// The run's histogram bins, [lower_ns, count] each; a bin of any other
// shape makes the run's bins unusable (its percentiles are then averaged).
bool add_bins(std::map<std::int64_t, std::uint64_t>& bins, const json& lat, std::uint64_t& binned) {
    const json* list = nullptr;
    if (lat.contains("histogram") && lat["histogram"].is_object() &&
        lat["histogram"].contains("bins"))
        list = &lat["histogram"]["bins"];
    if (!list) return true;
    if (!list->is_array()) return false;
    std::map<std::int64_t, std::uint64_t> mine;
    for (const auto& b : *list) {
        if (!b.is_array() || b.size() < 2 || !b[0].is_number_integer() ||
            !b[1].is_number_integer() || b[1] < 0)
            return false;
        const auto n = b[1].get<std::uint64_t>();
        mine[b[0].get<std::int64_t>()] += n;
        binned += n;
    }
    for (const auto& [lower, n] : mine) bins[lower] += n;
    return true;
}

void collect(Collected& c, const json& probe, int run_index) {
    static const json kEmpty = json::object();
    const json& lat =
        probe.contains("latency") && probe["latency"].is_object() ? probe["latency"] : kEmpty;
    const auto samples = count_of(lat, "samples");
    LatencyRow& row = c.row;
    ++row.runs;
    row.samples += samples;
    std::uint64_t binned = 0;
    if (!add_bins(c.bins, lat, binned) || binned != samples) c.every_run_has_bins = false;
    if (samples > 0) {
        const double lo = number_at(lat, "/min_ns"_json_pointer);
        const double hi = number_at(lat, "/max_ns"_json_pointer);
        c.min_ns = std::isfinite(c.min_ns) ? std::min(c.min_ns, lo) : lo;
        c.max_ns = std::isfinite(c.max_ns) ? std::max(c.max_ns, hi) : hi;
    }
    c.periods += count_of(lat, "periods");
    c.missed += count_of(lat, "missed");
    row.run_p99_ns.push_back(number_at(lat, "/percentiles_ns/99.00"_json_pointer));
    row.run_missed_pct.push_back(number_at(probe, "/missed_pct"_json_pointer));
    c.p50.push_back(number_at(lat, "/percentiles_ns/50.00"_json_pointer));
    c.p999.push_back(number_at(lat, "/percentiles_ns/99.90"_json_pointer));
    c.got.push_back(number_at(probe, "/cpu_share_pct/got"_json_pointer));
    c.wanted.push_back(number_at(probe, "/cpu_share_pct/wanted"_json_pointer));
    c.probe_cpu.push_back(number_at(probe, "/probe_cpu/cpu_pct"_json_pointer));
    c.one_pct_low.push_back(number_at(probe, "/frames/one_pct_low_fps"_json_pointer));
    add_why(row, probe.value("why", json::object()));
    add_worst_spike(row, probe.value("why", json::object()), run_index);
    c.nominal_fps.push_back(number_at(probe, "/frames/nominal_fps"_json_pointer));
}

LatencyRow pooled_row(Collected& c) {
    LatencyRow row = std::move(c.row);
    for (const auto& [lower, count] : c.bins) row.bins.push_back({lower, count});
    row.pooled = c.every_run_has_bins;
    row.max_ns = c.max_ns;
    if (row.pooled) {
        row.p50_ns = pooled_percentile_ns(row.bins, 50, c.min_ns, c.max_ns);
        row.p99_ns = pooled_percentile_ns(row.bins, 99, c.min_ns, c.max_ns);
        row.p999_ns = pooled_percentile_ns(row.bins, 99.9, c.min_ns, c.max_ns);
    } else {
        row.p50_ns = mean_of(c.p50);
        row.p99_ns = mean_of(row.run_p99_ns);
        row.p999_ns = mean_of(c.p999);
    }
    if (c.periods > 0)
        row.missed_pct = 100.0 * static_cast<double>(c.missed) / static_cast<double>(c.periods);
    row.cpu_got_pct = mean_of(c.got);
    row.cpu_wanted_pct = mean_of(c.wanted);
    row.probe_cpu_pct = mean_of(c.probe_cpu);
    row.one_pct_low_fps = mean_of(c.one_pct_low);
    row.nominal_fps = mean_of(c.nominal_fps);
    return row;
}

// Welch's t on one figure per run, as Time is tested; effect_pct is given,
// and a difference of one unit of the figure is pct_per_unit of it.
std::optional<Test> welch_test(const std::string& what, const std::vector<double>& a,
                               const std::vector<double>& b, double effect_pct, double pct_per_unit,
                               bool in_points) {
    if (a.size() < kMinRunsForSignificance || b.size() < kMinRunsForSignificance)
        return std::nullopt;
    const auto w = stats::welch_t_test(a, b);
    if (!w) return std::nullopt;
    Test t;
    t.what = what;
    t.method = "Welch t on per-run figures";
    t.statistic = w->t;
    t.df = w->df;
    t.p = w->p;
    t.effect_pct = effect_pct;
    t.resolution = Resolution{w->se, w->df, false, pct_per_unit, in_points};
    return t;
}

void test_against(LatencyRow& row, const LatencyRow& base, const std::string& load) {
    const double p99 = mean_of(row.run_p99_ns), base_p99 = mean_of(base.run_p99_ns);
    row.p99_test = welch_test(row.probe + " p99 under " + load, row.run_p99_ns, base.run_p99_ns,
                              (p99 / base_p99 - 1) * 100, 100 / base_p99, false);
    // Missed is already a percentage: its effect is the difference in points.
    row.missed_test =
        welch_test(row.probe + " missed% under " + load, row.run_missed_pct, base.run_missed_pct,
                   mean_of(row.run_missed_pct) - mean_of(base.run_missed_pct), 1, true);
}

}  // namespace

double pooled_percentile_ns(const std::vector<LatencyBin>& bins, double p, double min_ns,
                            double max_ns) {
    std::uint64_t n = 0;
    for (const auto& b : bins) n += b.count;
    if (n == 0) return LatencyRow::kNone;
    // rank = ceil(p/100 N) in integers, p in hundredths (95.40 N / 100 in
    // floating point lands a hair above a whole number).
    const auto hundredths = static_cast<unsigned __int128>(std::llround(p * 100));
    const auto rank = static_cast<std::uint64_t>((hundredths * n + 9999) / 10000);
    if (rank <= 1) return min_ns;
    if (rank >= n) return max_ns;
    std::uint64_t seen = 0;
    for (const auto& b : bins) {
        seen += b.count;
        if (seen >= rank) return std::clamp(static_cast<double>(b.lower_ns), min_ns, max_ns);
    }
    return max_ns;
}

void add_latency(ReportModel& model) {
    for (auto& block : model.blocks) {
        std::map<std::pair<int, std::string>, Collected> by_probe;  // (probe rank, probe)
        std::vector<std::string> probes;
        for (const auto& cell : block.cells) {
            std::map<std::string, Collected> mine;
            for (const auto& sr : cell.runs) {
                if (!sr.run.ok() || !sr.run.latency.is_object()) continue;
                for (const auto& [probe, figures] : sr.run.latency.items()) {
                    if (!figures.is_object()) continue;  // a file's, not a probe's record
                    Collected& c = mine[probe];
                    c.row.label = cell.label;
                    c.row.probe = probe;
                    collect(c, figures, sr.run.index);
                }
            }
            for (auto& [probe, c] : mine) {
                LatencyRow row = pooled_row(c);
                block.latency.push_back(std::move(row));
            }
        }
        std::stable_sort(block.latency.begin(), block.latency.end(),
                         [](const LatencyRow& a, const LatencyRow& b) {
                             return latency::probe_order(a.probe) < latency::probe_order(b.probe);
                         });
        for (auto& row : block.latency) {
            if (row.label == model.baseline) continue;
            for (const auto& base : block.latency)
                if (base.label == model.baseline && base.probe == row.probe)
                    test_against(row, base, block.load);
        }
    }
}

std::vector<std::string> latency_notes(const ReportModel& model) {
    std::vector<std::string> notes;
    for (const latency::ProbeInfo* probe : latency::probe_table()) {
        if (probe->footnote.empty()) continue;
        bool shown = false;
        for (const auto& block : model.blocks)
            for (const auto& row : block.latency) shown = shown || row.probe == probe->name;
        if (shown) notes.push_back(std::string(probe->name) + ": " + std::string(probe->footnote));
    }
    return notes;
}

}  // namespace contest
