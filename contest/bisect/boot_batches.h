#pragma once
// contest bisect --boot: a batch of rounds across reboots of this machine.
// A batch is one or more parts, each a `contest run --boot` of the batch's
// labels into <batch>/part-N, started and left to the machine: the run's
// unit takes its turns, one reboot each, and once the run is over starts
// `contest bisect --continue`, whose take of the same batch finds the
// parts' files here. The batch's rounds are its parts' in order, and the
// stop rule is asked after each part: the first has what the decision
// needs to begin (the ends' test three rounds, a step's two), each later
// part one round more, until the rule decides or max_rounds are taken.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/bisect/batch_files.h"
#include "contest/bisect/bisection.h"

namespace contest::bisect {

// Thrown by the take once a part is started: the machine reboots through
// its turns and the bisection goes on in `contest bisect --continue`.
struct PartStarted {
    std::filesystem::path part;
    unsigned rounds = 0;
};

// Starts `contest run --boot` of kernels in `rounds` rounds into the folder
// `part` (and returns once its first reboot is asked).
using StartPart = std::function<void(const std::vector<KernelSpec>& kernels,
                                     const std::filesystem::path& part, unsigned rounds)>;

// The batch's take: its parts' files merged when the rule decided or the
// bound is reached (or a part brought some label no figure); else the next part
// started (PartStarted). UsageError while a part's run is still under way,
// EnvironmentError when a part just started ended at once (its first reboot
// refused: another part would end the same way).
TakeRounds rounds_across_reboots(StartPart start);

}  // namespace contest::bisect
