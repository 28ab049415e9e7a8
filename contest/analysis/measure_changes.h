#pragma once
// What else changed between two kernels under a load: every numeric measure
// the runs recorded besides Time (the run record's figures, the perf
// counters, the timeline's window totals, the latency probes' p99 and
// missed%; measures.h), tested between the labels as Time is, corrected
// together over that load's measures, and what survives ranked by the size
// of its change. Rendered by contest/report/measure_changes_text.h.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/report_model.h"

namespace contest {

struct MeasureChange {
    std::string measure;  // e.g. "psi_io_some_pct", "perf_context_switches"
    std::string meaning;  // what it is in plain words, from measures(); "" unknown
    double base_mean = 0, new_mean = 0;
    Test test;  // effect_pct: the relative change of the mean, in %
};

struct LoadMeasureChanges {
    std::string load;
    std::size_t tested = 0;              // measures tested, the correction's count
    std::vector<std::string> methods;    // the tests used, each once
    std::vector<MeasureChange> changed;  // significant after the correction, largest first
    std::vector<std::string> only_base, only_new;  // recorded on one side only: not tested
};

// Per load both labels ran; `base` and `fresh` name the two labels. A load
// where either side has fewer than kMinRunsForSignificance ok runs is left
// out. Judged with the model's alpha, correction and minimum effect.
std::vector<LoadMeasureChanges> measure_changes(const ReportModel& model, const std::string& base,
                                                const std::string& fresh);

}  // namespace contest
