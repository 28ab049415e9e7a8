#pragma once
// A comparison in the shape of the kernel test robot's (LKP, 0-day) mails:
// per label against the baseline, the two labels over the columns, then a
// row a measure, `base ±%stddev  %change  new ±%stddev  name`, the names
// dotted paths (io_load.time_s, cpu_load.cyclic.99.0th_us); under it the
// marks, which way each measure is better, what the tests could see and the
// verdict. For `contest post --style lkp` and `contest compare --format lkp`.
#include <cstddef>
#include <string>

#include "contest/analysis/report_model.h"

namespace contest {

// The widest label the columns' header holds as it is.
inline constexpr std::size_t kLkpLabelColumns = 16;

// A measure a robot follows and has tested with a test of its own (contest
// track's confirmation: the two measured again together, round by round):
// what its two-kernel table's mark of that measure and its verdict are on,
// the model's Time verdict beside it, so the mail does not say "no
// difference" of the change it was written for.
struct FollowedMeasure {
    std::string name;  // as the robot names it: "loads:process_load"
    std::string load;
    std::string row;     // the row's measure ("loads", "time_s"); "" when no row is it
    bool differ = false;  // its test found the two apart
    std::string change;   // its change of record, "-70.8%"
    std::string test;     // its test's sentence
};

// Every label but the model's baseline against it; with `followed`, its row
// marked by its own test and the verdict on it, Time's beside it.
std::string lkp_comparisons(const ReportModel& model, const FollowedMeasure* followed = nullptr);

}  // namespace contest
