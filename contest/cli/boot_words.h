#pragma once
// The words a --boot run's config is made of, once, at its start, and
// kept in its journal (run/plan/run_journal.h). Root re-reads nothing of a
// user's after the start (docs/boot.md): each boot's step runs the
// journal's config, parsing no word, so these words carry every option the command line and its
// --config file gave, merged (no --config left to read again), each path
// made absolute and its links resolved (no relative path left to read in
// a folder), and every path a later step reads or writes must be one that
// only root can change (nor any folder above it).
#include <string>
#include <vector>

#include "contest/cli/run_options.h"

namespace contest {

// The words after "run" of a parsed `contest run` (the table's options as
// given, on the command line or in its --config file, none by default),
// one word an option's value ("--name=value"), paths absolute and
// resolved. UsageError, one line naming the option, when a path that a
// later step reads or writes (the workload's source and config, the
// latency probes' raw files, the summary, a load's folder) is one anyone
// but root could change. (--build-config is read at the start alone: a
// --boot run builds then, and contest bisect --boot copies it into its
// folder for every later part, drive/bisection_journal.h.)
std::vector<std::string> boot_run_words(const RunOptions& options);

}  // namespace contest
