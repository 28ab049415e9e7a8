#pragma once
// A batch's rounds, label by label, wherever the batch ran: a run of guests
// keeps each label's files in <batch>/<label>/, a batch across reboots in
// its parts, <batch>/part-N/<label>/ (bisection.h), whose rounds are
// numbered on. The one reader of a batch's files: the stop rule of a batch
// across reboots is asked on it, and the ends' rounds of every batch so far
// are pooled from it, so that a step is judged on the same rounds in guests
// and across reboots.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/result/result_file.h"

namespace contest::bisect {

// The folder of a batch's part n (from 1).
std::filesystem::path part_folder(const std::filesystem::path& batch, unsigned n);

struct BatchFiles {
    // By label, one file each (a label with no file left out); across
    // reboots every part's runs, its rounds numbered on from the parts
    // before (part 2's round 1 is the batch's round 1 + the rounds of part 1).
    std::vector<ResultFile> files;
    unsigned rounds = 0;  // the batch's rounds
    // Across reboots, each part's own files, in the parts' order (none for
    // a guests' batch).
    std::vector<std::vector<ResultFile>> parts;
};

// The files of `labels` in `batch`: across reboots, of the parts whose
// run wrote its state (part-1, part-2, ... up to the first without).
BatchFiles read_batch(const std::filesystem::path& batch, const std::vector<std::string>& labels);

// A guests' batch cut short (Ctrl-C, a kill, a crash) that its run's
// journal can take on: the one run journal (STAMP.run-journal) in the
// batch's label folders, of this contest's schema, with a turn not done,
// naming only files in the batch's folder, at least one of them there and
// not complete. nullopt for anything else (nothing saved yet, a batch
// whose rounds all ran, two runs' journals, a journal of another
// contest): the batch is then taken again from its first round.
std::optional<std::filesystem::path> interrupted_run(const std::filesystem::path& batch);

// The parts' files merged, label by label, as read_batch's `files`.
std::vector<ResultFile> merged_parts(const std::vector<std::vector<ResultFile>>& parts,
                                     unsigned& rounds);

}  // namespace contest::bisect
