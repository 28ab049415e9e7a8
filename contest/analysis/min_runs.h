#pragma once
// How many runs a side needs before a test of it is stated: the floor under
// every p-value the report gives (Time, Ratio, latency, the measures).
#include <cstddef>

namespace contest {

// Below this many successful runs on either side, no p-value is given: with
// two runs the spread itself is a guess.
inline constexpr std::size_t kMinRunsForSignificance = 3;
// Mann-Whitney's normal approximation needs a few runs per side to mean much.
inline constexpr std::size_t kMinRunsForMannWhitney = 5;

}  // namespace contest
