#pragma once
// A bisection driven at its place (bisect/bisection.h says which batch it
// needs next; this layer, above run/ and bisect/, runs it): each batch is
// its journal made (the bisection journal's config with the batch's
// kernels, rounds and folder: a struct, no word parsed) and advanced at its
// place (at_place.h), whatever the place; a batch cut short taken on from
// its run's journal; a --boot part started, after which the bisection
// yields until the part's end hands over (journal_continue.h).
#include <filesystem>
#include <optional>
#include <string>

#include "contest/bisect/bisection.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/progress.h"

namespace contest::drive {

// Where a bisection driven stands: answered (`part` unset: its state holds
// the answer), or yielding, a part of a batch started across reboots.
struct BisectionDriven {
    bisect::BisectState state;
    struct Part {
        std::filesystem::path folder;
        unsigned rounds = 0;
    };
    std::optional<Part> part;
};

// The batch `need` asks for, as a journal: the bisection journal's config
// with the batch's kernels, rounds and folder (absolute), its boot options
// kept (under --boot the batch is a --boot run owned by the bisection in
// `bisection_folder`). Nothing is parsed.
RunJournal batch_journal(const RunJournal& journal, const bisect::BatchNeed& need,
                         const std::filesystem::path& bisection_folder);

// Runs (or takes on) the bisection of `options` from its `journal`, each
// batch it asks for advanced at its place, until it answers or a part is
// started; `containment` is how this contest holds the runs' processes.
BisectionDriven drive_bisection(const bisect::BisectOptions& options, const RunJournal& journal,
                                const std::string& containment, Progress& progress);

}  // namespace contest::drive
