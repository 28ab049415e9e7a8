#include "contest/track/track_steps.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace contest::track {

namespace fs = std::filesystem;

double now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double utc_span_s(const std::string& from, const std::string& to) {
    const auto seconds = [](const std::string& text) -> double {
        std::tm tm{};
        std::istringstream in(text);
        in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
        return in.fail() ? -1 : static_cast<double>(::timegm(&tm));
    };
    const double a = seconds(from), b = seconds(to);
    return a < 0 || b < a ? -1 : b - a;
}

void set_aside(const fs::path& folder) {
    std::error_code ec;
    if (!fs::exists(folder, ec)) return;
    for (int n = 1;; ++n) {
        fs::path aside = folder;
        aside += ".interrupted-" + std::to_string(n);
        if (!fs::exists(aside, ec)) {
            fs::rename(folder, aside);
            return;
        }
    }
}

std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", s);
    return text;
}

std::string three_digits(std::size_t n) {
    std::string text = std::to_string(n);
    return std::string(text.size() < 3 ? 3 - text.size() : 0, '0') + text;
}

}  // namespace contest::track
