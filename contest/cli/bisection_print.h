#pragma once
// Where a bisection driven stands, printed on stdout (contest bisect's, and
// the unit's log when a --boot part's end handed over to it): its answer,
// or the part of a batch just started across reboots.
#include <filesystem>

#include "contest/drive/bisection_drive.h"
#include "contest/sys/progress.h"

namespace contest {

// Its exit code: 0 with a first bad commit or a part started, 1 when the
// ends cannot be told apart or only skipped commits are left.
int print_bisection(const drive::BisectionDriven& driven, const std::filesystem::path& folder,
                    Progress& progress);

}  // namespace contest
