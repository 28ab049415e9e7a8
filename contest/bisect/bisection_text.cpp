// What a bisection says: its answer as the outputs table renders it (the
// model filled here, from the state: report/bisection_text.h), and the
// command that takes it on.
#include "contest/bisect/bisection_text.h"

#include "contest/kbuild/label_options.h"
#include "contest/report/outputs.h"
#include "contest/sys/number_text.h"

namespace contest::bisect {

std::string commit_spec(const BisectState& state, const std::string& commit) {
    return state.tree + "@" + commit +
           kbuild::label_options_of_lines(state.options, "contest bisect: the state's options: ")
               .spec_tail();
}

std::string short_hash(const std::string& commit) {
    return commit.substr(0, 12);
}

BisectionAnswer bisection_answer(const BisectState& s) {
    BisectionAnswer a;
    a.good = short_hash(s.good);
    a.bad = short_hash(s.bad);
    a.measure = s.measure;
    a.emulated = s.emulated;
    a.across_reboots = s.place == "boot";
    a.ends_state = s.ends_state;
    a.ends_why = s.ends_why;
    for (const BisectStep& step : s.steps)
        a.steps.push_back({.commit = short_hash(step.commit),
                           .subject = step.subject,
                           .state = step.state,
                           .sureness = step.sureness,
                           .over_halfway = step.over_halfway,
                           .rounds = step.rounds,
                           .position = step.position,
                           .why = step.why,
                           .cache_hit = step.cache_hit,
                           .build_s = step.build_s,
                           .guests_s = step.guests_s,
                           .boots_s = step.boots_s,
                           .seconds = step.seconds});
    a.finished = s.finished;
    a.failure = s.failure;
    a.first_bad = s.first_bad;
    a.first_bad_subject = s.first_bad_subject;
    a.first_bad_author = s.first_bad_author;
    for (const std::string& commit : s.could_be) a.could_be.push_back(commit);
    a.sureness = s.sureness;
    // The ends' test as this bisection ran it (a state written before its
    // bound was kept ran the default's).
    BisectRule rule;
    if (s.ends_max_rounds) rule.ends_max_rounds = s.ends_max_rounds;
    a.ends_min_rounds = rule.ends_min_rounds;
    a.ends_max_rounds = rule.ends_max_rounds;
    a.ends_level = rule.ends_level;
    a.ends_false_differ = ends_false_differ_rate(rule);
    a.seconds = s.seconds;
    return a;
}

std::string bisection_text(const BisectState& s) {
    return find_output("text", OutputUse::bisection).bisection(bisection_answer(s));
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
