#pragma once
// Progress on stderr: a live, rewritten line on a terminal; plain lines
// otherwise; nothing with --quiet. Results never go through here. And what
// contest says on stderr besides progress (warnings, why a run failed, what
// it restored): say() and warn(), from every layer, which end a live line
// first so a message is never glued to it.
#include <string>
#include <string_view>

namespace contest {

class Progress {
  public:
    enum class Mode { kQuiet, kLines, kLive };
    explicit Progress(Mode mode) : mode_(mode) {}
    static Progress for_stderr(bool quiet);  // kLive when stderr is a tty
    // A status that may be replaced by the next one (live) or printed (lines).
    void status(const std::string& text);
    // A live-only update (a clock ticking): dropped when not on a terminal,
    // so logs get one line per step, not one per second.
    void tick(const std::string& text) {
        if (mode_ == Mode::kLive) status(text);
    }
    // A step finished, or a fact about the run, that stays on screen (not
    // with --quiet). Warnings go through warn(), which --quiet keeps.
    void note(const std::string& text);
    void clear();  // ends a live line before other output
    Mode mode() const { return mode_; }

  private:
    Mode mode_;
    std::string last_;
    double last_line_at_ = -1e9;  // monotonic seconds of the last status line (kLines)
};

// A line that must be seen, --quiet or not: "contest: " and text on stderr.
// A live progress line (of any Progress) is ended first; the next status
// draws it again below.
void say(std::string_view text);

// A warning: said as "contest: warning: " and text.
void warn(std::string_view text);

}  // namespace contest
