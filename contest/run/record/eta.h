#pragma once
// The progress line's clock: durations as a clock shows them, and the ETA
// of the suite from how long its finished runs took.
#include <string>

namespace contest {

// Remembers how long runs take, for the ETA.
struct Eta {
    double spent_s = 0;
    int done = 0;
    int total = 0;
    std::string widest_ci;  // --runs auto: "  widest CI ±3.1%"
    // "  ETA 4:10" (and the widest CI), the current run `current_elapsed`
    // seconds in; only the widest CI before the first run finished.
    std::string text(double current_elapsed) const;
};

}  // namespace contest
