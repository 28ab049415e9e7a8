#pragma once
// What a --duet run's files say of their guests' starts (each round's boot
// in config.vm.boots[].duet.starts, and config.vm.duet), read as a report
// reads a file, untrusted: whether the start barrier held. A note under the
// table for the labels whose rounds ran as duets (how close their runs
// started), a warning where a run's guests started far apart or one did
// not wait for the barrier, and a note where --duet was asked and not
// taken (the host had too few CPUs).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"
#include "contest/result/result_file.h"

namespace contest {

// A spread of starts beyond this is a barrier that did not hold, not a slow
// one: it holds to milliseconds (the guests look every 5 ms, the host every
// 10 ms), and a run under TCG lasts seconds at the least.
inline constexpr double kDuetSpreadWarnS = 0.5;

// One label's duet starts over its files.
struct DuetStarts {
    std::size_t runs = 0;      // runs with a recorded start of every guest
    std::size_t early = 0;     // starts before the barrier let them go
    std::size_t wide = 0;      // runs whose spread is over kDuetSpreadWarnS
    double widest_s = 0;       // the widest spread
    std::string widest_where;  // "round 2, cpu_load"
    std::string not_taken;     // why --duet was not taken, when it was not
};

// The starts of every duet round in `config` added to `into`.
void add_duet_starts(const nlohmann::json& config, DuetStarts& into);

// The notes and warnings of the files' duets, per label.
void note_duet_starts(const std::vector<ResultFile>& files, ReportModel& model);

}  // namespace contest
