#pragma once
// The latency block of a report as the exporters show it: the rows of the
// text, markdown and HTML tables, the legend under them and each row's JSON.
// The rows themselves are worked out in contest/analysis/latency_model.h.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/latency_rows.h"
#include "contest/analysis/report_model.h"

namespace contest {

// "cyclic latency under no_load" rows as the text and markdown tables show
// them, in us: Kernel, [runs], p50, p99, p99.9, Max, Missed%, CPU got/wanted
// ("-" for cyclic), Probe CPU%, and the mark ("*" p99, "!" missed differ).
std::vector<std::string> latency_header();
std::vector<std::string> latency_cells(const LatencyRow& row);
// "* p99 differs from the baseline's beyond noise; ! deadlines missed differ"
// with the rules, or the line about per-run means; "" when nothing to say.
// --latency-why: per load, probe and label, the share of the late time each
// cause took: "cpu_load, cyclic, a: of 812.0 ms late (312 wake-ups, 300 in the trace, 3 runs
// with --latency-why): 71% load tasks, 18% workload tasks, 6% softirq NET_RX".
std::vector<std::string> latency_why_lines(const ReportModel& model);
// "71% load tasks, 18% workload tasks, 6% softirq NET_RX": each cause's share
// of late_ns, most first, those under half a percent left out.
std::string late_shares_text(const std::map<std::string, double>& causes, double late_ns);
std::string latency_legend(const ReportModel& model);
// The json of one row.
nlohmann::json latency_json(const LatencyRow& row);

}  // namespace contest
