#pragma once
// --runs auto: rounds until the figures are known well enough, and the rule
// that says, after a round, whether another is needed. One label: every
// load's Ratio CI under --target-ci. Two or more labels (a comparison: the
// values of --vary): every compared Time's minimum detectable effect under
// --target-mde. Either way at most --max-runs rounds, and no round that
// would end past --budget. The figures are the analysis layer's
// (widest_ratio_ci_pct, widest_time_mde_pct: contest/analysis/build_report_model.h),
// estimated as the report estimates them.
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/sys/progress.h"

namespace contest {

struct AutoRuns {
    double target_ci_pct = 2;        // one label: the widest Ratio CI half-width to reach, in %
    double target_mde_pct = 5;       // labels compared: the largest Time MDE to reach, in %
    unsigned max_runs = 15;          // and after this many rounds in any case
    std::optional<double> budget_s;  // --budget: no round is started that would end past it
    // --adjust outside: the MDE aimed at is that of Time net of outside
    // work (analysis/outside_work.h) where the adjustment applies.
    bool adjust_outside = false;
};

// Rounds before --runs auto looks at the CIs: with fewer, a CI is a guess.
inline constexpr unsigned kMinAutoRounds = 3;

// The time this invocation of contest run has spent on runs, from its
// first, and what it took for that: how many rounds' worth of runs (its
// runs over the runs a round holds). Under --resume the rounds the file
// already held are not among them: they took none of this time.
struct RoundsTimed {
    double elapsed_s = 0;
    double rounds = 0;
    // The next round, taken to last as long as the mean round so far.
    double next_round_s() const { return rounds > 0 ? elapsed_s / rounds : 0; }
};

// After round `round`, `timed` into the runs: from kMinAutoRounds on, says
// the widest CI (or MDE) on progress and sets `shown` to it for the
// progress line ("  widest CI ±3.10%"). True when no further round is
// needed or allowed, with every result's stopped_because saying why.
bool enough_rounds(const AutoRuns& auto_runs, unsigned round, const RoundsTimed& timed,
                   std::vector<ResultFile>& results, Progress& progress, std::string& shown);

// "45m", "90s", "1.5h", "600" (seconds) as seconds; UsageError naming
// --budget for anything else or outside 1 s to 7 days.
double parse_budget(const std::string& text);
// 2700 as "45m", 90 as "90s", 5400 as "1.5h".
std::string budget_text(double seconds);

}  // namespace contest
