// libFuzzer: a track's state reader on arbitrary bytes (track.json lives in
// the track's folder, which others may write, and names folders the track
// writes into). Any bytes either read as a state or are refused with a
// UsageError; a state read once is written and read back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "contest/sys/errors.h"
#include "contest/track/track_state.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    contest::track::TrackState s;
    try {
        s = contest::track::track_state_from_text(text, "fuzz.json");
    } catch (const contest::UsageError&) {
        return 0;
    }
    const std::string written = contest::track::track_state_text(s);
    if (contest::track::track_state_text(
            contest::track::track_state_from_text(written, "written.json")) != written)
        std::abort();
    return 0;
}
