#pragma once
// The life of the run a journal holds, made through its place's entry in
// the place table (PlaceInfo::journal_life): a run given as its journal
// alone (contest run --journal FILE, a bisection's batch) is started at its
// place with no word parsed, whatever the place.
#include <memory>

#include "contest/run/plan/place_life.h"
#include "contest/run/plan/run_journal.h"

namespace contest {

// UsageError, one line, for a place whose runs are not started from a
// journal, or a journal that lacks what its place keeps there.
std::shared_ptr<PlaceLife> life_of_journal(const RunJournal& journal);

}  // namespace contest
