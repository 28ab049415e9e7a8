#pragma once
// A round of the plan (run_plan.h) as the loop hands it to a backend
// (round_backend.h): its own header, below both, since the plan's maker
// reads the places' backends.
#include <cstddef>
#include <vector>

namespace contest {

// One label's turn in a round: the runs of the round it takes one after
// the other, their loads in order (indices into RunPlan::loads).
struct LabelTurn {
    std::size_t label;  // index into RunPlan::labels
    std::vector<std::size_t> loads;
    // Its turn in the run's journal (JournalTurns::list), which the driver
    // marks as it is taken: the plan is the journal's (run_driver.cpp).
    std::size_t turn = 0;
};

// One round's runs still to take, turn by turn. `index` is its runs'
// number under each load: the round, or under --order blocks (which has no
// rounds) the number of its one run.
struct PlannedRound {
    unsigned index;
    std::vector<LabelTurn> turns;
};

}  // namespace contest
