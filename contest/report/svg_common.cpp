#include "contest/report/svg_common.h"

#include <cmath>
#include <cstdio>

#include "contest/report/formats.h"

namespace contest {

std::string escape_xml(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string svg_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

double tick_step(double top) {
    const double raw = top / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw) return m * magnitude;
    return 10 * magnitude;
}

std::string tick_label(double v, double step) {
    return fixed(v, step < 0.1 ? 2 : step < 1 ? 1 : 0);
}

}  // namespace contest
