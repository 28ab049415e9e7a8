#include "contest/run/auto_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace contest {

bool enough_rounds(const AutoRuns& auto_runs, unsigned round, std::vector<ResultFile>& results,
                   Progress& progress, std::string& shown_ci) {
    if (round < kMinAutoRounds) return false;
    double widest = 0;
    for (const auto& result : results) widest = std::max(widest, auto_runs.widest_ci_pct(result));
    char ci[64], text[200];
    if (std::isfinite(widest))
        std::snprintf(ci, sizeof ci, "±%.2f%%", widest);
    else
        std::snprintf(ci, sizeof ci, "not known yet");
    shown_ci = std::string("  widest CI ") + ci;
    std::snprintf(text, sizeof text,
                  "contest: after round %u the widest Ratio CI is %s (target ±%g%%)", round, ci,
                  auto_runs.target_ci_pct);
    progress.note(text);
    if (widest < auto_runs.target_ci_pct)
        std::snprintf(text, sizeof text,
                      "every load's Ratio CI was under ±%g%% after %u rounds (widest %s)",
                      auto_runs.target_ci_pct, round, ci);
    else if (round >= auto_runs.max_runs)
        std::snprintf(text, sizeof text,
                      "--max-runs %u reached; the widest Ratio CI was %s (target ±%g%%)",
                      auto_runs.max_runs, ci, auto_runs.target_ci_pct);
    else
        return false;
    for (auto& result : results) result.stopped_because = text;
    return true;
}

}  // namespace contest
