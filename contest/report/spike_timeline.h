#pragma once
// The worst spike of each label (--latency-why) as a short timeline: who
// held the probe's CPU from when it should have woken to when it ran, for
// the text and markdown reports (lines) and the HTML page (a drawing).
#include <string>
#include <vector>

#include "contest/analysis/latency_rows.h"
#include "contest/analysis/report_model.h"

namespace contest {

struct LabelSpike {
    std::string probe, label, load;
    const WorstSpike* spike = nullptr;  // into the model's rows
};

// Per probe and label, the latest wake-up over every load, in the order the
// rows come (probe, then label); none without --latency-why timelines.
std::vector<LabelSpike> worst_spikes(const ReportModel& model);

// "worst spike: cyclic, a: 12.400 ms late, io_load run 3, CPU 1:", then a
// line per stretch of at least 2% of the spike ("+0.050 ms   8.000 ms  dd
// pid 1234 (load)"), the shorter ones between two such said as one line.
std::vector<std::string> spike_timeline_lines(const LabelSpike& s);

// The same as a bar along the time axis, a colour per owner, each stretch
// titled (an SVG document).
std::string spike_timeline_svg(const LabelSpike& s);

}  // namespace contest
