// What a bisection says: its answer and every step's evidence as text
// (for the terminal, its log and contest post), and the command that takes
// it on.
#include "contest/bisect/bisection_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "contest/kbuild/label_options.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

// How sure the whole answer is: its steps' sureness holds if the ends
// differ, and the ends' test, looking after every round, says they differ
// when they do not at its real level (simulated), not at its nominal p.
// In all, at least 1 minus both chances of error.
std::string answer_sureness_text(const BisectState& s) {
    BisectRule rule;
    if (s.ends_max_rounds) rule.ends_max_rounds = s.ends_max_rounds;
    const double ends_error = ends_false_differ_rate(rule);
    char test[160];
    std::snprintf(test, sizeof test,
                  "the ends' test (a look after each of rounds %u to %u at p < %g) says they "
                  "differ when they do not %.1f%% of the time",
                  rule.ends_min_rounds, rule.ends_max_rounds, rule.ends_level, 100 * ends_error);
    const double in_all = std::max(0.0, s.sureness - ends_error);
    const bool any_step = std::any_of(s.steps.begin(), s.steps.end(), [](const BisectStep& step) {
        return step.state != StepClass::unknown;
    });
    if (!any_step)
        return "how sure: as the ends' test alone (no step decided between them): " +
               std::string(test) + ": " + sureness_text(in_all) + " sure\n";
    return "how sure: " + sureness_text(s.sureness) +
           " that every step is right, if the ends differ; " + test + ": at least " +
           sureness_text(in_all) + " in all\n";
}

}  // namespace

std::string commit_spec(const BisectState& state, const std::string& commit) {
    return state.tree + "@" + commit +
           kbuild::label_options_of_lines(state.options, "contest bisect: the state's options: ")
               .spec_tail();
}

// 0.97 as "97.0%", 0.9996 as "99.96%", and anything surer than 99.99% as
// "> 99.99%": a sureness is never 100%, and the plug-in figures behind it
// are not good to more places.
std::string sureness_text(double p) {
    if (1 - p < 1e-4) return "> 99.99%";
    char buf[32];
    std::snprintf(buf, sizeof buf, 1 - p < 0.005 ? "%.2f%%" : "%.1f%%", 100 * p);
    return buf;
}

std::string short_hash(const std::string& commit) {
    return commit.substr(0, 12);
}

std::string bisection_text(const BisectState& s) {
    // Every text of the state through printable(): a commit's subject and
    // author are the tree's, and may hold a terminal's escapes.
    const auto hash = [](const std::string& commit) { return printable(short_hash(commit)); };
    std::string out = "contest bisect: " + hash(s.good) + " (good) .. " + hash(s.bad) +
                      " (bad) on " + printable(s.measure) +
                      (s.emulated ? ", in emulated (TCG) guests" : "") + "\n";
    out +=
        "ends: " + (s.ends_state == EndsState::unknown ? "being measured" : printable(s.ends_why)) +
        "\n";
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        const BisectStep& step = s.steps[i];
        out += "step " + std::to_string(i + 1) + ": " + hash(step.commit) + " " +
               printable(step.subject) + ": " + std::string(name_in(kStepClassNames, step.state));
        if (step.state == StepClass::like_good || step.state == StepClass::like_bad)
            out += " (" + sureness_text(step.sureness) + " sure over the other end, " +
                   (std::isfinite(step.over_halfway)
                        ? sureness_text(step.over_halfway) + " over halfway, "
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
        out += ", " + seconds_text(step.seconds) +
               (parts.empty() ? "" : " (" + join(parts, "; ") + ")") + "\n";
    }
    if (!s.finished && !s.failure.empty()) {
        out += "ended without an answer after " + std::to_string(s.steps.size()) +
               (s.steps.size() == 1 ? " step: " : " steps: ") + printable(s.failure) +
               "\n(once mended, the same contest bisect again, or contest bisect --continue of "
               "its folder across reboots, takes it on from there)\n";
        return out;
    }
    if (!s.finished) {
        out += "under way: " + std::to_string(s.steps.size()) +
               (s.steps.size() == 1 ? " step" : " steps") + " taken so far" +
               (s.place == "boot" ? ", across reboots of this machine" : "") + "\n";
        return out;
    }
    std::vector<std::string> between;
    for (const auto& step : s.steps)
        if (step.state == StepClass::between) between.push_back(hash(step.commit));
    const std::string spread =
        between.empty() ? ""
                        : "the change spreads over more than one commit: " + join(between, ", ") +
                              " lie between the ends";
    if (!s.first_bad.empty())
        out += "first bad commit: " + printable(s.first_bad) + " " +
               printable(s.first_bad_subject) + " (" + printable(s.first_bad_author) + ")\n" +
               answer_sureness_text(s) + (spread.empty() ? "" : "but " + spread + "\n");
    else if (!s.could_be.empty() && !spread.empty())
        out +=
            spread + "; it lies within these commits: " + join(s.could_be, ", ", printable) + "\n";
    else if (!s.could_be.empty())
        out += "only skipped commits left: the first bad commit is one of " +
               join(s.could_be, ", ", printable) + "\n";
    else if (s.ends_state != EndsState::differ)
        out += "no bisection: the ends cannot be told apart on " + printable(s.measure) + "\n";
    out += "the whole bisection took " + seconds_text(s.seconds) + "\n";
    return out;
}

std::vector<std::string> bisection_command(const BisectState& s) {
    std::vector<std::string> words = {"contest", "bisect"};
    if (s.place == "boot") words.push_back("--boot");
    for (const auto& [option, value] :
         {std::pair{"--good", commit_spec(s, s.good)}, std::pair{"--bad", commit_spec(s, s.bad)},
          std::pair{"--measure", s.measure}, std::pair{"--error-rate", six_digits(s.error_rate)},
          std::pair{"--step-max-rounds", std::to_string(s.step_max_rounds)}})
        words.push_back(std::string(option) + "=" + value);
    if (s.ends_max_rounds)
        words.push_back("--ends-max-rounds=" + std::to_string(s.ends_max_rounds));
    if (!s.run_words.empty()) words.push_back("--");
    words.insert(words.end(), s.run_words.begin(), s.run_words.end());
    return words;
}

}  // namespace contest::bisect
