#pragma once
// The figure a bisection decides on, as the user names it (--measure
// WHAT:LOAD), read from a step's result files round by round: each round's
// good, bad and tested figure, paired by the round they ran in.
//  - time:LOAD   the workload's wall time under LOAD (s)
//  - ratio:LOAD  that time over the same round's no_load time
//  - loads:LOAD  LOAD's work done in the workload's window (its Loads)
//  - NAME:LOAD   any measure a run records (contest/analysis/measures.h):
//                latency_cyclic_p99_us, latency_audio_missed_pct, ...
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/bisect_decision.h"
#include "contest/result/result_file.h"

namespace contest::bisect {

struct BisectMeasure {
    std::string what;  // time, ratio, loads or a measure's name
    std::string load;
    std::string text() const { return what + ":" + load; }
};

// UsageError, one line naming --measure, for anything else; `loads` are the
// run's, which must hold LOAD (and no_load for ratio).
BisectMeasure parse_bisect_measure(const std::string& text, const std::vector<std::string>& loads);

// The unit of the measure's figures, as a shift of them is written after
// its number: " s", " us", " %", " of process_load's work"; "" for a bare
// ratio or count.
std::string unit_of(const BisectMeasure& m);

// The measure's figure of one label's round; nullopt when the round has no
// ok run of what it needs (a failed run: data, but no figure).
std::optional<double> figure_of(const ResultFile& file, int round, const BisectMeasure& m);

// A step's rounds, from its files by label (good, bad and, for a step,
// tested), in round order; a round without a figure of each is left out and
// counted in `incomplete`.
std::vector<EndsRound> ends_rounds(const ResultFile& good, const ResultFile& bad,
                                   const BisectMeasure& m, unsigned& incomplete);
std::vector<StepRound> step_rounds(const ResultFile& good, const ResultFile& bad,
                                   const ResultFile& tested, const BisectMeasure& m,
                                   unsigned& incomplete);

}  // namespace contest::bisect
