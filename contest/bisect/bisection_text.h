#pragma once
// What a bisection says: its answer, the texts its progress shares with
// it, and the command that takes it on.
#include <string>
#include <vector>

#include "contest/bisect/bisect_state.h"

namespace contest::bisect {

// 0.97 as "97.0%", 0.9996 as "99.96%", anything surer than 99.99% as
// "> 99.99%".
std::string sureness_text(double p);

// A commit's first 12 hex digits, as the bisection names it.
std::string short_hash(const std::string& commit);

// A batch's kernel of `commit`: TREE@COMMIT and the state's options as the
// spec's %OPTIONS (UsageError for a line of them that is no option).
std::string commit_spec(const BisectState& state, const std::string& commit);

// The answer for a mail (`contest post` of a bisection, the end of a run):
// the question, every step's evidence, the first bad commit and how sure.
std::string bisection_text(const BisectState& state);

// The words of the `contest bisect` that asked the state's question: the
// tree, the ends, the measure, the rule and each batch's run words (as the
// state holds them, not quoted for a shell); the results folder left out.
std::vector<std::string> bisection_command(const BisectState& state);

}  // namespace contest::bisect
