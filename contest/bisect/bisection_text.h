#pragma once
// What a bisection says: its answer (the model of report/bisection_text.h,
// filled here from the state, and its text as the outputs table renders it),
// the names its progress shares with it, and the command that takes it on.
#include <string>
#include <vector>

#include "contest/bisect/bisect_state.h"
#include "contest/report/bisection_text.h"

namespace contest::bisect {

// A commit's first 12 hex digits, as the bisection names it.
std::string short_hash(const std::string& commit);

// A batch's kernel of `commit`: TREE@COMMIT and the state's options as the
// spec's %OPTIONS (UsageError for a line of them that is no option).
std::string commit_spec(const BisectState& state, const std::string& commit);

// The answer for a mail (`contest post` of a bisection, the end of a run):
// the question, every step's evidence, the first bad commit and how sure.
BisectionAnswer bisection_answer(const BisectState& state);
std::string bisection_text(const BisectState& state);

// The words of the `contest bisect` that asked the state's question: the
// tree, the ends, the measure, the rule and each batch's run words (as the
// state holds them, not quoted for a shell); the results folder left out.
std::vector<std::string> bisection_command(const BisectState& state);

}  // namespace contest::bisect
