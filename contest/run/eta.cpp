#include "contest/run/eta.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace contest {

std::string format_duration(double s) {
    long t = std::lround(std::max(0.0, s));
    char buf[32];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

std::string Eta::text(double current_elapsed) const {
    if (done == 0) return widest_ci;
    double per = spent_s / done;
    return "  ETA " + format_duration(per * (total - done) - current_elapsed) + widest_ci;
}

}  // namespace contest
