#pragma once
// A turn another contest takes, and its result read back: what every place
// that runs its rounds elsewhere does alike, whatever carries the words
// there and the files back (a QEMU guest and its 9p share today,
// kernel_guests.h; an SSH host or a fleet host next). The other contest is
// given the turn's loads in the order the plan made, one round, the round's
// own seed and where to work and write; what it leaves is read as
// untrusted (its root may plant links, FIFOs, huge or malformed files);
// every load asked for comes back as one run, the other's record of it or
// a failed one saying why.
//
// A new place that runs contest elsewhere: its file (place_*.cpp) with its
// table line, a backend that carries delegated_run_words there and the
// results folder back, and these for the rest.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"

namespace contest {

struct DelegatedTurn {
    std::string label;
    unsigned round = 0;
    std::vector<std::string> loads;  // in the order the plan takes them
    std::uint64_t seed = 0;          // the round's own (guest_seed)
    // Where the other contest works and writes, as it sees them.
    std::string workdir, results;
    // The run's own options that the other contest takes too (the
    // workload, probes, ...: RunConfig::delegated_arguments).
    std::vector<std::string> arguments;
};

// The other contest's words after its binary: `run`, then one word per
// option (--name=value, so that a label or a load starting with '-' stays
// a value), --runs=1 --order=rounds: it takes the loads as given.
std::vector<std::string> delegated_run_words(const DelegatedTurn& turn);

// What the other contest left under `results` (its results folder, as
// brought back here): its result file, or why there is none usable (what
// the reader found and refused).
struct ResultBroughtBack {
    std::optional<ResultFile> result;
    std::string problem;  // "" when result holds one
};
ResultBroughtBack read_result_brought_back(const std::filesystem::path& results);

// One run per load of the turn, in its order: the other's record of the
// load (its index and round the turn's), or a run of `failed_status` whose
// reason is `failure` when the turn failed as a whole, else "<who> did not
// run <load>" and `detail`.
std::vector<RunRecord> runs_brought_back(const DelegatedTurn& turn,
                                         const std::optional<ResultFile>& result,
                                         const std::string& failure, RunStatus failed_status,
                                         const std::string& who, const std::string& detail);

}  // namespace contest
