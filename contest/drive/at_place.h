#pragma once
// A run's journal started or advanced at its place, through its place's
// life made of the journal (run/plan/places.h: life_of_journal), whatever
// the place: the drive layer names none, and calls no place's driver. A
// journal of the guests' or this host's place is taken here until its
// turns are all taken (or its stop rule stops it); a --boot journal is
// started, and yields: its turns go on across reboots, each step a contest
// of its own, whose end hands over to the journal that owns it
// (journal_continue.h).
#include <filesystem>
#include <optional>
#include <string>

#include "contest/bisect/batch_way.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/progress.h"

namespace contest::drive {

enum class AtPlace { ended, yields };

// `journal`: the run's config and, for a --boot run, how it boots
// (journal.boot). `take_on`: the run's own journal when the run is one cut
// short that goes on (its config is then that journal's, which must be a
// run of the same kernels: UsageError otherwise). `stop` asked after each
// round of a run that ends here. SaveFailed when saving its files failed;
// UsageError, EnvironmentError, StepFailed as the run's.
AtPlace advance_at_place(RunJournal journal, const std::optional<std::filesystem::path>& take_on,
                         const bisect::StopRule& stop, Progress& progress);

}  // namespace contest::drive
