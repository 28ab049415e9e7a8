#include "contest/cli/bisection_print.h"

#include <iostream>

#include "contest/bisect/bisection_text.h"
#include "contest/report/outputs.h"
#include "contest/sys/errors.h"

namespace contest {

int print_bisection(const drive::BisectionDriven& driven, const std::filesystem::path& folder,
                    Progress& progress) {
    progress.clear();
    BisectionAnswer answer;
    if (driven.part)
        answer.part = {driven.part->rounds, driven.part->folder.string(), folder.string()};
    else
        answer = bisect::bisection_answer(driven.state);
    std::cout << find_output("text", OutputUse::bisection).bisection(answer) << std::flush;
    if (driven.part) return kExitOk;
    return driven.state.first_bad.empty() ? kExitSomeRunsFailed : kExitOk;
}

}  // namespace contest
