#include "contest/cli/bisection_print.h"

#include <iostream>

#include "contest/bisect/bisection_text.h"
#include "contest/sys/errors.h"

namespace contest {

int print_bisection(const drive::BisectionDriven& driven, const std::filesystem::path& folder,
                    Progress& progress) {
    progress.clear();
    if (driven.part) {
        const std::string part = driven.part->folder.string();
        std::cout << "contest bisect: " << driven.part->rounds
                  << (driven.part->rounds == 1 ? " round" : " rounds") << " started in " << part
                  << ": this machine reboots through their turns, and the bisection goes on "
                     "by itself after them (contest run --boot-status --results "
                  << part << "; contest post " << folder.string() << " for where it stands)\n"
                  << std::flush;
        return kExitOk;
    }
    std::cout << bisect::bisection_text(driven.state) << std::flush;
    return driven.state.first_bad.empty() ? kExitSomeRunsFailed : kExitOk;
}

}  // namespace contest
