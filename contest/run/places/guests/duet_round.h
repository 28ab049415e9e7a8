#pragma once
// A duet's round (--duet): every label's guest of the round booted at once,
// each QEMU pinned to its own host CPUs (duet_cpus.h), and their runs
// started together through the start barrier (start_barrier.h), so that the
// host's moment, whatever it does to the guests' speed, is the same for
// every label of the round. The guests are watched in one loop, stopped on
// every way out (their RunningGuest), and what each brought back is read as
// a guest's alone is.
#include <cstdint>
#include <string>
#include <vector>

#include "contest/run/places/guests/kernel_guests.h"
#include "contest/run/record/label_run.h"
#include "contest/run/rounds/start_barrier.h"
#include "contest/sys/progress.h"

namespace contest {

// One label's guest in a duet's round.
struct DuetGuest {
    const LabelRun* label = nullptr;
    std::uint64_t seed = 0;  // its contest's --seed (turn_seed)
    std::vector<int> cpus;   // the host CPUs its QEMU is pinned to
};

struct DuetRound {
    std::vector<GuestRound> guests;  // in the order given
    // Per guest: how many of QEMU's threads were on its CPUs, and no other,
    // when it came up (0: it never came up).
    std::vector<std::size_t> pinned_threads;
    std::vector<BarrierRelease> releases;  // the start barrier's, run by run
};

// Boots every guest of `round` at once, each running `loads` in this order.
DuetRound run_duet_round(KernelGuests& guests, unsigned round, const std::vector<DuetGuest>& each,
                         const std::vector<std::string>& loads, Progress& progress);

}  // namespace contest
