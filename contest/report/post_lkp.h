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

// Every label but the model's baseline against it.
std::string lkp_comparisons(const ReportModel& model);

}  // namespace contest
