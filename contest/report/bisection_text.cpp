// What a bisection says as text: its answer and every step's evidence, or
// the part of a batch it started across reboots.
#include "contest/report/bisection_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

// How sure the whole answer is: its steps' sureness holds if the ends
// differ, and the ends' test, looking after every round, says they differ
// when they do not at its real level (simulated), not at its nominal p.
// In all, at least 1 minus both chances of error.
std::string answer_sureness_text(const BisectionAnswer& a) {
    char test[160];
    std::snprintf(test, sizeof test,
                  "the ends' test (a look after each of rounds %u to %u at p < %g) says they "
                  "differ when they do not %.1f%% of the time",
                  a.ends_min_rounds, a.ends_max_rounds, a.ends_level, 100 * a.ends_false_differ);
    const double in_all = std::max(0.0, a.sureness - a.ends_false_differ);
    const bool any_step = std::any_of(
        a.steps.begin(), a.steps.end(),
        [](const BisectionAnswerStep& step) { return step.state != StepClass::unknown; });
    if (!any_step)
        return "how sure: as the ends' test alone (no step decided between them): " +
               std::string(test) + ": " + sureness_text(in_all) + " sure\n";
    return "how sure: " + sureness_text(a.sureness) +
           " that every step is right, if the ends differ; " + test + ": at least " +
           sureness_text(in_all) + " in all\n";
}

std::string part_started_text(const BisectionPartStarted& p) {
    return "contest bisect: " + std::to_string(p.rounds) + (p.rounds == 1 ? " round" : " rounds") +
           " started in " + p.part +
           ": this machine reboots through their turns, and the bisection goes on by itself "
           "after them (contest run --boot-status --results " +
           p.part + "; contest post " + p.bisection + " for where it stands)\n";
}

std::string step_text(const BisectionAnswerStep& step) {
    std::string out = printable(step.commit) + " " + printable(step.subject) + ": " +
                      std::string(name_in(kStepClassNames, step.state));
    if (step.state == StepClass::like_good || step.state == StepClass::like_bad)
        out +=
            " (" + sureness_text(step.sureness) + " sure over the other end, " +
            (std::isfinite(step.over_halfway) ? sureness_text(step.over_halfway) + " over halfway, "
                                              : "") +
            std::to_string(step.rounds) + " rounds, at " + fixed(step.position, 2) +
            " of the way from good to bad)";
    else if (step.state == StepClass::between)
        out += " (" + sureness_text(step.sureness) + " sure, " + std::to_string(step.rounds) +
               " rounds, at " + fixed(step.position, 2) +
               " of the way from good to bad): neither end, skipped";
    else
        out += ", skipped: " + printable(step.why);
    std::vector<std::string> parts;
    if (step.cache_hit)
        parts.push_back("built before: the cache's");
    else if (step.build_s > 0)
        parts.push_back("build " + seconds_text(step.build_s));
    if (step.guests_s > 0)
        parts.push_back("guests " + seconds_text(step.guests_s) + ", of it booting " +
                        seconds_text(step.boots_s));
    return out + ", " + seconds_text(step.seconds) +
           (parts.empty() ? "" : " (" + join(parts, "; ") + ")") + "\n";
}

}  // namespace

std::string sureness_text(double p) {
    if (1 - p < 1e-4) return "> 99.99%";
    char buf[32];
    std::snprintf(buf, sizeof buf, 1 - p < 0.005 ? "%.2f%%" : "%.1f%%", 100 * p);
    return buf;
}

// Every text of the model through printable(): a commit's subject and
// author are the tree's, and may hold a terminal's escapes.
std::string bisection_answer_text(const BisectionAnswer& a) {
    if (a.part) return part_started_text(*a.part);
    std::string out = "contest bisect: " + printable(a.good) + " (good) .. " + printable(a.bad) +
                      " (bad) on " + printable(a.measure) +
                      (a.emulated ? ", in emulated (TCG) guests" : "") + "\n";
    out +=
        "ends: " + (a.ends_state == EndsState::unknown ? "being measured" : printable(a.ends_why)) +
        "\n";
    for (std::size_t i = 0; i < a.steps.size(); ++i)
        out += "step " + std::to_string(i + 1) + ": " + step_text(a.steps[i]);
    if (!a.finished && !a.failure.empty()) {
        out += "ended without an answer after " + std::to_string(a.steps.size()) +
               (a.steps.size() == 1 ? " step: " : " steps: ") + printable(a.failure) +
               "\n(once mended, the same contest bisect again, or contest bisect --continue of "
               "its folder across reboots, takes it on from there)\n";
        return out;
    }
    if (!a.finished) {
        out += "under way: " + std::to_string(a.steps.size()) +
               (a.steps.size() == 1 ? " step" : " steps") + " taken so far" +
               (a.across_reboots ? ", across reboots of this machine" : "") + "\n";
        return out;
    }
    std::vector<std::string> between;
    for (const auto& step : a.steps)
        if (step.state == StepClass::between) between.push_back(printable(step.commit));
    const std::string spread =
        between.empty() ? ""
                        : "the change spreads over more than one commit: " + join(between, ", ") +
                              " lie between the ends";
    if (!a.first_bad.empty())
        out += "first bad commit: " + printable(a.first_bad) + " " +
               printable(a.first_bad_subject) + " (" + printable(a.first_bad_author) + ")\n" +
               answer_sureness_text(a) + (spread.empty() ? "" : "but " + spread + "\n");
    else if (!a.could_be.empty() && !spread.empty())
        out +=
            spread + "; it lies within these commits: " + join(a.could_be, ", ", printable) + "\n";
    else if (!a.could_be.empty())
        out += "only skipped commits left: the first bad commit is one of " +
               join(a.could_be, ", ", printable) + "\n";
    else if (a.ends_state != EndsState::differ)
        out += "no bisection: the ends cannot be told apart on " + printable(a.measure) + "\n";
    out += "the whole bisection took " + seconds_text(a.seconds) + "\n";
    return out;
}

}  // namespace contest
