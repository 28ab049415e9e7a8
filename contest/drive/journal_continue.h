#pragma once
// A run that a bisection owns (a --boot part: its journal names the
// bisection, BootState::owner) ended in this contest, the unit's `contest
// run --boot-continue`: the bisection's journal is taken on here, the
// part's files judged, and the next part started, or the answer. The run's
// end hands over through the journals; no command is built.
#include <filesystem>
#include <memory>
#include <optional>

#include "contest/drive/bisection_drive.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/progress.h"

namespace contest::drive {

// The owning bisection (its folder) taken on, where it stands after; nullopt
// when it failed (said, and kept in its state: the step that ended the run
// is done either way). `held`: the containment the step that ended the run
// held (LifeStep::containment), in which the owner goes on; null: one is
// set up here.
std::optional<BisectionDriven> continue_owner(const std::filesystem::path& owner,
                                              std::shared_ptr<RunContainment> held,
                                              Progress& progress);

}  // namespace contest::drive
