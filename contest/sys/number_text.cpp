#include "contest/sys/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace contest {

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

std::string fixed(double value, int decimals) {
    if (!std::isfinite(value)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    if (buf[0] == '-' && std::strtod(buf, nullptr) == 0) return buf + 1;
    return buf;
}

std::string six_digits(double value) {
    if (!std::isfinite(value)) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

std::string four_digits(double v) {
    if (std::fabs(v) >= 1e4) return fixed(v, 0);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string svg_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string clock_duration(double seconds) {
    const long t = std::lround(std::max(0.0, seconds));
    char buf[32];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

std::string seconds_text(double seconds, int decimals) { return fixed(seconds, decimals) + " s"; }

}  // namespace contest
