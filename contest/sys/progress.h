#pragma once
// Progress on stderr: a live, rewritten line on a terminal; plain lines
// otherwise; nothing with --quiet. Results never go through here.
#include <string>

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
    // A message that must stay: warnings, finished steps.
    void note(const std::string& text);
    void clear();  // ends a live line before other output
    Mode mode() const { return mode_; }

  private:
    Mode mode_;
    bool line_open_ = false;
    std::string last_;
    double last_line_at_ = -1e9;  // monotonic seconds of the last status line (kLines)
};

}  // namespace contest
