#include "contest/run/plan/auto_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "contest/analysis/build_report_model.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

std::string pct_text(double pct) {
    char text[64];
    if (std::isfinite(pct))
        std::snprintf(text, sizeof text, "±%.2f%%", pct);
    else
        std::snprintf(text, sizeof text, "not known yet");
    return text;
}

// What the rounds so far measured against what --runs auto aims for.
struct Aim {
    std::string what;  // "the widest Ratio CI", "the largest Time MDE"
    double reached = 0, target = 0;
};

Aim aim_of(const AutoRuns& auto_runs, const std::vector<ResultFile>& results) {
    if (results.size() >= 2)
        return {auto_runs.adjust_outside
                    ? "the largest Time MDE (net of outside work where it applied)"
                    : "the largest Time MDE",
                widest_time_mde_pct(results, auto_runs.adjust_outside), auto_runs.target_mde_pct};
    double widest = 0;
    for (const auto& result : results) widest = std::max(widest, widest_ratio_ci_pct(result));
    return {"the widest Ratio CI", widest, auto_runs.target_ci_pct};
}

// Why the budget stops the runs, or "" when another round fits.
std::string over_budget(const AutoRuns& auto_runs, const RoundsTimed& timed) {
    if (!auto_runs.budget_s) return "";
    const double elapsed_s = timed.elapsed_s, next_round_s = timed.next_round_s();
    if (elapsed_s + next_round_s <= *auto_runs.budget_s) return "";
    char text[200];
    std::snprintf(text, sizeof text,
                  "--budget %s: another round (about %.1f s) would end past it, after %.1f s",
                  budget_text(*auto_runs.budget_s).c_str(), next_round_s, elapsed_s);
    return text;
}

}  // namespace

bool enough_rounds(const AutoRuns& auto_runs, unsigned round, const RoundsTimed& timed,
                   std::vector<ResultFile>& results, Progress& progress, std::string& shown) {
    const std::string budget = over_budget(auto_runs, timed);
    if (round < kMinAutoRounds && budget.empty()) return false;
    const Aim aim = aim_of(auto_runs, results);
    const std::string reached = pct_text(aim.reached);
    const bool mde = aim.what.find("MDE") != std::string::npos;
    shown = std::string(mde ? "  largest MDE " : "  widest CI ") + reached;
    char text[300];
    std::snprintf(text, sizeof text, "contest: after round %u %s is %s (target ±%g%%)", round,
                  aim.what.c_str(), reached.c_str(), aim.target);
    progress.note(text);
    std::string why;
    if (round >= kMinAutoRounds && aim.reached < aim.target) {
        std::snprintf(text, sizeof text, "%s was under ±%g%% after %u rounds (%s)",
                      mde ? "every compared Time's MDE" : "every load's Ratio CI", aim.target,
                      round, reached.c_str());
        why = text;
    } else if (round >= auto_runs.max_runs) {
        std::snprintf(text, sizeof text, "--max-runs %u reached; %s was %s (target ±%g%%)",
                      auto_runs.max_runs, aim.what.c_str(), reached.c_str(), aim.target);
        why = text;
    } else if (!budget.empty()) {
        why = budget + "; " + aim.what + " was " + reached + " (target ±" + six_digits(aim.target) +
              "%)";
    } else {
        return false;
    }
    for (auto& result : results) result.stopped_because = why;
    return true;
}

double parse_budget(const std::string& text) {
    const auto bad = [&] {
        return UsageError(
            "--budget must be a time such as 90s, 45m or 1.5h (1 s to 7 days), not '" + text + "'");
    };
    if (text.empty()) throw bad();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const std::string unit(end);
    double seconds = 0;
    if (unit.empty() || unit == "s")
        seconds = value;
    else if (unit == "m")
        seconds = value * 60;
    else if (unit == "h")
        seconds = value * 3600;
    else
        throw bad();
    if (end == text.c_str() || !(seconds >= 1 && seconds <= 7 * 86400)) throw bad();
    return seconds;
}

std::string budget_text(double seconds) {
    if (seconds >= 3600 && std::fmod(seconds, 360) == 0) return six_digits(seconds / 3600) + "h";
    if (seconds >= 60 && std::fmod(seconds, 6) == 0) return six_digits(seconds / 60) + "m";
    return six_digits(seconds) + "s";
}

}  // namespace contest
