#pragma once
// A command that runs `contest run` for its user (contest bisect's batches,
// contest track's points) sets some of the run's options itself: the user's
// words after `--` must not give them.
#include <initializer_list>
#include <string>
#include <vector>

namespace contest {

struct RunConfig;

// The first of `own` (option names without their dashes) that `words`
// give, as contest run's own parser reads them (an abbreviation, -n5, a
// --config file's line all count); "" when none does, or when the words do
// not parse (the run's own check says why).
std::string run_option_given(const std::vector<std::string>& words,
                             std::initializer_list<const char*> own);

// The loads as the command's runs take them: `default` and `all` expanded.
std::vector<std::string> loads_of_run(const RunConfig& run);

// --measure as given, else time under the first of `loads` but no_load;
// UsageError naming `command` when there is none.
std::string measure_or_default(const std::string& measure, const std::vector<std::string>& loads,
                               const std::string& command);

}  // namespace contest
