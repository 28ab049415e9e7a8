#include "contest/report/latency_tables.h"
#include "contest/analysis/latency_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "contest/report/formats.h"

namespace contest {

namespace {

using nlohmann::json;

std::string us(double ns) {
    return fixed(ns / 1000, 1);
}

}  // namespace

std::vector<std::string> latency_header() {
    return {"Kernel",     "[runs]",         "p50",       "p99", "p99.9", "Max", "Missed%",
            "1% low fps", "CPU got/wanted", "Probe CPU%"};
}

std::vector<std::string> latency_cells(const LatencyRow& row) {
    std::string share = "-";
    if (std::isfinite(row.cpu_wanted_pct))
        share = fixed(row.cpu_got_pct, 1) + "/" + fixed(row.cpu_wanted_pct, 1);
    std::string low = "-";
    // The cyclic probe records its nominal rate but no frames: nothing to say.
    if (std::isfinite(row.nominal_fps) && std::isfinite(row.one_pct_low_fps))
        low = fixed(row.one_pct_low_fps, 1) + "/" + fixed(row.nominal_fps, 0);
    std::string mark = std::string(row.p99_significant() ? "*" : "") +
                       (row.missed_significant() ? "!" : "") + (row.pooled ? "" : "~");
    return {row.label,
            std::to_string(row.runs),
            us(row.p50_ns),
            us(row.p99_ns),
            us(row.p999_ns),
            us(row.max_ns),
            fixed(row.missed_pct, 2),
            low,
            share,
            fixed(row.probe_cpu_pct, 2),
            mark};
}

std::string late_shares_text(const std::map<std::string, double>& causes, double late_ns) {
    std::vector<std::pair<double, std::string>> parts;
    for (const auto& [what, ns] : causes)
        if (ns > 0) parts.push_back({ns, what});
    std::sort(parts.begin(), parts.end(), std::greater<>());
    std::string shares;
    for (const auto& [ns, what] : parts) {
        const double pct = late_ns > 0 ? 100 * ns / late_ns : 0;
        if (pct < 0.5) continue;
        shares += (shares.empty() ? "" : ", ") + fixed(pct, 0) + "% " + what;
    }
    return shares;
}

std::vector<std::string> latency_why_lines(const ReportModel& model) {
    std::vector<std::string> lines;
    for (const auto& block : model.blocks)
        for (const auto& row : block.latency) {
            if (row.why_runs == 0 || !(row.late_ns > 0)) continue;
            lines.push_back(block.load + ", " + row.probe + ", " + row.label + ": of " +
                            fixed(row.late_ns / 1e6, 1) + " ms late (" +
                            std::to_string(row.late_wakeups) + " wake-ups, " +
                            std::to_string(row.late_in_trace) + " in the trace, " +
                            std::to_string(row.why_runs) + " runs with --latency-why): " +
                            late_shares_text(row.late_by_cause_ns, row.late_ns));
        }
    return lines;
}

std::string latency_legend(const ReportModel& model) {
    bool any_test = false, any_mean = false;
    for (const auto& block : model.blocks)
        for (const auto& row : block.latency) {
            any_test = any_test || row.p99_test || row.missed_test;
            any_mean = any_mean || !row.pooled;
        }
    std::string legend =
        "Latency in us, percentiles over every sample of the runs (histograms pooled, 1 us "
        "resolution); Missed%: periods whose deadline passed; 1% low fps: audio, video: the "
        "rate of the slowest 1% of frames (from the time between one frame's work done and "
        "the next's) over the nominal rate; CPU got/wanted: % of a CPU.";
    for (const std::string& note : latency_notes(model)) legend += "\n" + note;
    if (any_test)
        legend += "\n* p99 differs from the baseline " + model.baseline +
                  "'s beyond noise; ! missed% does (Welch t on the per-run figures, " +
                  correction_summary(model) + ")";
    if (any_mean)
        legend += "\n~ a run without a histogram: percentiles are the mean of the runs' own";
    return legend;
}

json worst_spike_json(const std::optional<WorstSpike>& spike) {
    if (!spike) return nullptr;
    json parts = json::array();
    for (const auto& p : spike->timeline) {
        json j = {{"at_ns", p.at_ns}, {"ns", p.ns}, {"kind", p.kind}};
        if (!p.name.empty()) j["name"] = p.name;
        if (p.kind == "task") {
            j["pid"] = p.pid;
            j["class"] = p.task_class;
        }
        if (p.kind == "more") j["parts"] = p.parts;
        parts.push_back(std::move(j));
    }
    return {{"late_ns", spike->late_ns},
            {"run_index", spike->run_index},
            {"cpu", spike->cpu},
            {"timeline", parts}};
}

json latency_json(const LatencyRow& row) {
    auto test = [](const std::optional<Test>& t) { return t ? test_json(*t) : json(nullptr); };
    json bins = json::array();
    for (const auto& b : row.bins) bins.push_back({b.lower_ns, b.count});
    return {{"label", row.label},
            {"probe", row.probe},
            {"runs", row.runs},
            {"samples", row.samples},
            {"pooled_histogram", row.pooled},
            {"p50_ns", json_number(row.p50_ns)},
            {"p99_ns", json_number(row.p99_ns)},
            {"p99_9_ns", json_number(row.p999_ns)},
            {"max_ns", json_number(row.max_ns)},
            {"missed_pct", json_number(row.missed_pct)},
            {"late_by_cause_ns", row.late_by_cause_ns},
            {"late_ns", json_number(row.late_ns)},
            {"late_wakeups", row.late_wakeups},
            {"late_in_trace", row.late_in_trace},
            {"worst_spike", worst_spike_json(row.worst_spike)},
            {"one_pct_low_fps", json_number(row.one_pct_low_fps)},
            {"nominal_fps", json_number(row.nominal_fps)},
            {"cpu_share_pct",
             {{"got", json_number(row.cpu_got_pct)}, {"wanted", json_number(row.cpu_wanted_pct)}}},
            {"probe_cpu_pct", json_number(row.probe_cpu_pct)},
            {"p99_test", test(row.p99_test)},
            {"missed_test", test(row.missed_test)},
            {"histogram_bins", bins}};
}

}  // namespace contest
