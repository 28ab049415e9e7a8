#include "contest/sys/progress.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace contest {
namespace {

// Whether stderr ends in a live line not yet ended by a newline. stderr is
// one stream for the whole process, so this is the process's, not one
// Progress's: say() ends it too.
bool live_line_open = false;

void end_live_line() {
    if (live_line_open) std::fputs("\r\033[K", stderr);
    live_line_open = false;
}

}  // namespace

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
            live_line_open = true;
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
    end_live_line();
}

void say(std::string_view text) {
    end_live_line();
    std::fprintf(stderr, "contest: %.*s\n", static_cast<int>(text.size()), text.data());
    std::fflush(stderr);
}

void warn(std::string_view text) {
    say("warning: " + std::string(text));
}

}  // namespace contest
