#include "contest/drive/journal_continue.h"

#include "contest/drive/at_place.h"
#include "contest/drive/bisection_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::drive {

JournalContinued continue_journal(const std::filesystem::path& journal,
                                  const std::string& containment, Progress& progress) {
    JournalContinued continued;
    continued.step = continue_at_place(journal, containment, progress);
    if (continued.step.owner.empty()) return continued;
    // The run's journal named its owner, root's and above the run's folder
    // (boot/boot_state.h checks both); the bisection's own journal is read
    // as root reads it (bisection_journal.h). Whatever the bisection does
    // is its own: the step that ended the run is done either way.
    continued.bisection = continued.step.owner;
    say("the boot run's bisection goes on: " + printable(continued.bisection.string()));
    try {
        continued.driven = continue_bisection(continued.bisection, containment, progress);
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        warn("contest bisect --continue " + printable(continued.bisection.string()) + ": " +
             e.what());
    }
    return continued;
}

}  // namespace contest::drive
