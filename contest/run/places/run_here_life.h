#pragma once
// The life of a run this contest takes to its end, turn after turn with
// its place's backend (the host's, the guests'; run_driver.h): start runs
// a new run, advance goes on with the run a journal holds (--resume), each
// in this process; once their contest has ended no run of theirs is under
// way for status to show or abort to stop.
#include <memory>

#include "contest/run/plan/place_life.h"
#include "contest/run/record/run_outcome.h"

namespace contest {

std::shared_ptr<PlaceLife> run_here_life();

// A run's outcome as a verb's step: each label's file, where it was saved,
// a failed save, and the exit code they make.
LifeStep step_of_outcome(const RunOutcome& outcome);

}  // namespace contest
