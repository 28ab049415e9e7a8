#include "contest/drive/journal_continue.h"

#include "contest/drive/bisection_journal.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::drive {

std::optional<BisectionDriven> continue_owner(const std::filesystem::path& owner,
                                              std::shared_ptr<RunContainment> held,
                                              Progress& progress) {
    // The run's journal named its owner, root's and above the run's folder
    // (boot/boot_state.h checks both); the bisection's own journal is read
    // as root reads it (bisection_journal.h).
    say("the boot run's bisection goes on: " + printable(owner.string()));
    try {
        if (!held) held = RunContainment::set_up();
        return continue_bisection(owner, held->description(), progress);
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        warn("contest bisect --continue " + printable(owner.string()) + ": " + e.what());
    }
    return std::nullopt;
}

}  // namespace contest::drive
