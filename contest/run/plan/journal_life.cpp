#include "contest/run/plan/journal_life.h"

#include <string>

#include "contest/run/plan/places.h"
#include "contest/sys/errors.h"

namespace contest {

std::shared_ptr<PlaceLife> life_of_journal(const RunJournal& journal) {
    const PlaceInfo& place = place_info(journal.config.place);
    if (!place.journal_life)
        throw UsageError("a run of --" + std::string(place.option) +
                         " is not started from its journal alone");
    return place.journal_life(journal);
}

}  // namespace contest
