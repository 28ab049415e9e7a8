#pragma once
// --runs auto: rounds until every load's Ratio is known well enough, and the
// rule that says, after a round, whether another is needed.
#include <functional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/sys/progress.h"

namespace contest {

struct AutoRuns {
    double target_ci_pct = 2;  // stop when the widest Ratio CI half-width is under this, in %
    unsigned max_runs = 15;    // and after this many rounds in any case
    // The widest Ratio CI half-width (in % of the Ratio) of the results so
    // far; infinity while some load's is unknown. Given by the caller (the
    // report layer knows how Ratio is estimated; the run loop does not).
    std::function<double(const ResultFile&)> widest_ci_pct;
};

// Rounds before --runs auto looks at the CIs: with fewer, a CI is a guess.
inline constexpr unsigned kMinAutoRounds = 3;

// After round `round`: from kMinAutoRounds on, says the widest CI on
// progress and sets `shown_ci` to it for the progress line ("  widest CI
// ±3.10%"). True when no further round is needed, with every result's
// stopped_because saying why.
bool enough_rounds(const AutoRuns& auto_runs, unsigned round, std::vector<ResultFile>& results,
                   Progress& progress, std::string& shown_ci);

}  // namespace contest
