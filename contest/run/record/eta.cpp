#include "contest/run/record/eta.h"

#include "contest/sys/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace contest {

std::string Eta::text(double current_elapsed) const {
    if (done == 0) return widest_ci;
    double per = spent_s / done;
    return "  ETA " + clock_duration(per * (total - done) - current_elapsed) + widest_ci;
}

}  // namespace contest
