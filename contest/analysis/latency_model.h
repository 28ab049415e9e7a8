#pragma once
// The latency block of a report made from its cells' runs: the rows
// (latency_rows.h) pooled, and their tests against the baseline label,
// judged in the same family as Time (significance.cpp). Rendered by
// contest/report/latency_tables.h.
//
// Pooling: the runs' histograms (1 us buckets below 100 ms) are added and the
// percentiles read from the sum, nearest rank over all samples as the probe
// reads one run's, clamped to the exact min and max of all runs. Only when
// some run carries no histogram are the percentiles the mean of the runs'
// own (row.pooled false, said in the report).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/latency_rows.h"
#include "contest/analysis/report_model.h"

namespace contest {

// A --latency-why split's `by_cause` as one map of causes ("load tasks",
// "irq local_timer", "softirq NET_RX", "timer expiry", "unexplained") to ns.
std::map<std::string, double> late_causes_ns(const nlohmann::json& by_cause);

// One block's rows from its cells' runs, and the tests against the baseline.
// Rows go by probe, in the probe table's order, then label order.
void add_latency(ReportModel& model);

// Nearest rank over pooled bins (idx = ceil(p/100 N) - 1), clamped to
// [min_ns, max_ns]; rank 1 is min_ns and rank N max_ns. NaN without samples.
double pooled_percentile_ns(const std::vector<LatencyBin>& bins, double p, double min_ns,
                            double max_ns);

// The probe table's notes on the probes the rows show, in its order, each
// "PROBE: note" (exec's: what its time and its misses are).
std::vector<std::string> latency_notes(const ReportModel& model);

}  // namespace contest
