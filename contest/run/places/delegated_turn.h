#pragma once
// A turn another contest takes, and its result read back: what every place
// that runs its rounds elsewhere does alike, whatever carries the turn
// there and the files back (a QEMU guest and its 9p share today,
// kernel_guests.h; an SSH host or a fleet host next). The other contest is
// given the turn as a journal (run_journal.h): the run's delegated config
// with the turn's loads in the order the plan made, one round, the round's
// own seed and where to work and write; it parses no option of the run's
// (`contest run --journal=PATH`). What it leaves is read as
// untrusted (its root may plant links, FIFOs, huge or malformed files);
// every load asked for comes back as one run, the other's record of it or
// a failed one saying why.
//
// A new place that runs contest elsewhere: its file (place_*.cpp) with its
// table line, a backend that carries the turn's journal and
// delegated_run_words there and the results folder back, and these for the
// rest.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"
#include "contest/run/plan/run_journal.h"

namespace contest {

struct DelegatedTurn {
    std::string label;
    unsigned round = 0;
    std::vector<std::string> loads;  // in the order the plan takes them
    std::uint64_t seed = 0;          // the round's own (turn_seed)
    // Where the other contest works and writes, as it sees them.
    std::string workdir, results;
    // The run's config that the other contest takes (the workload, probes,
    // ...: RunConfig::delegated).
    std::shared_ptr<const RunConfig> config;
    // A duet's guest: where its runs wait to start with the other guests',
    // as it sees it (RunConfig::start_barrier); empty: none.
    std::string start_barrier;
    // How many times the other contest takes the loads, in the same order,
    // each time runs of their own (--runs-per-boot: its rounds).
    unsigned runs = 1;
};

// The turn's journal: the run's delegated config, with the turn's label,
// its loads in their order, one round in the order given, the round's
// seed, the other's workdir and results, and no results database (this
// host's recorder keeps what comes back).
RunJournal delegated_turn_journal(const DelegatedTurn& turn);

// The other contest's words after its binary: `run --journal=PATH`, PATH
// where it finds the turn's journal, as it sees it.
std::vector<std::string> delegated_run_words(const std::string& journal);

// What the other contest left under `results` (its results folder, as
// brought back here): its result file, or why there is none usable (what
// the reader found and refused).
struct ResultBroughtBack {
    std::optional<ResultFile> result;
    std::string problem;  // "" when result holds one
};
ResultBroughtBack read_result_brought_back(const std::filesystem::path& results);

// One run per load of the turn and time it took them (DelegatedTurn::runs),
// in the order taken: the other's record of the load in that round of its
// own, or a run of `failed_status` whose reason is `failure` when the turn
// failed as a whole, else "<who> did not run <load>" and `detail`. Each
// run's boot is the turn's round and run_in_boot its place in the turn;
// its index and round number it among the run's (turn.round - 1) * runs +
// run_in_boot, so that a round's runs pair across labels by their place in
// their boot, as runs of one boot each pair by the round.
std::vector<RunRecord> runs_brought_back(const DelegatedTurn& turn,
                                         const std::optional<ResultFile>& result,
                                         const std::string& failure, RunStatus failed_status,
                                         const std::string& who, const std::string& detail);

}  // namespace contest
