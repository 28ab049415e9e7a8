// libFuzzer: a bisection's state reader on arbitrary bytes (the state is its
// journal's `bisection` section, in a results folder, which others may
// write; the journal around it is read by the journal's reader, fuzz_run_journal). Any bytes either
// read as a state or are refused with a UsageError; a state read once is written and read back to
// the same text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "contest/bisect/bisect_state.h"
#include "contest/sys/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    contest::bisect::BisectState s;
    try {
        s = contest::bisect::bisect_state_from_text(text, "fuzz.json");
    } catch (const contest::UsageError&) {
        return 0;
    }
    const std::string written = contest::bisect::bisect_state_text(s);
    if (contest::bisect::bisect_state_text(
            contest::bisect::bisect_state_from_text(written, "written.json")) != written)
        std::abort();
    return 0;
}
