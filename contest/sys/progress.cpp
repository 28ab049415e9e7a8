#include "contest/sys/progress.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace contest {

Progress Progress::for_stderr(bool quiet) {
    if (quiet) return Progress(Mode::kQuiet);
    return Progress(::isatty(STDERR_FILENO) ? Mode::kLive : Mode::kLines);
}

void Progress::status(const std::string& text) {
    switch (mode_) {
        case Mode::kQuiet:
            return;
        case Mode::kLines: {
            // Plain lines for logs: a changed status, at most one per 5 s, so
            // a log of a long unpack or compile stays readable.
            struct timespec ts {};
            ::clock_gettime(CLOCK_MONOTONIC, &ts);
            double now = double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
            if (text == last_ || now - last_line_at_ < 5.0) return;
            std::fprintf(stderr, "%s\n", text.c_str());
            last_line_at_ = now;
            break;
        }
        case Mode::kLive:
            std::fprintf(stderr, "\r\033[K%s", text.c_str());
            line_open_ = true;
            break;
    }
    last_ = text;
    std::fflush(stderr);
}

void Progress::note(const std::string& text) {
    if (mode_ == Mode::kQuiet) return;
    clear();
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
}

void Progress::clear() {
    if (line_open_) std::fprintf(stderr, "\r\033[K");
    line_open_ = false;
}

}  // namespace contest
