#pragma once
// A --boot run's journal taken on after a boot (`contest run
// --boot-continue JOURNAL`, the unit's command): the run's step, and when
// that step ends a run a bisection owns (its journal names the bisection:
// BootState::owner), the bisection's journal taken on in the same contest:
// the part's files judged, and the next part started, or the answer. The
// run's end hands over through the journals; no command is built.
#include <filesystem>
#include <optional>
#include <string>

#include "contest/drive/bisection_drive.h"
#include "contest/run/boot_steps.h"
#include "contest/sys/progress.h"

namespace contest::drive {

struct JournalContinued {
    BootStep step;  // the run's step (its exit code, its files when it ended)
    // The owning bisection's folder and where it stands, when the step
    // handed over to it and it went on (a failure of it is said, and kept
    // in its state, not the step's).
    std::filesystem::path bisection;
    std::optional<BisectionDriven> driven;
};

// `containment`: how this contest holds the runs' processes (the step's and
// the bisection's batch's alike).
JournalContinued continue_journal(const std::filesystem::path& journal,
                                  const std::string& containment, Progress& progress);

}  // namespace contest::drive
