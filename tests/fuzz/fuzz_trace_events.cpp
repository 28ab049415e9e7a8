// libFuzzer: the text of a tracefs `trace` file, which holds comms any
// process chose. parse_trace must take any bytes without crashing or
// throwing, and account for every line it does not skip as a header.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "contest/observe/trace_events.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const contest::ParsedTrace parsed = contest::parse_trace(text);
    std::size_t lines = 0;
    for (char c : text) lines += c == '\n';
    if (parsed.events.size() + parsed.skipped_lines > lines + 1) std::abort();
    for (const auto& e : parsed.events)
        if (e.cpu < 0 || e.ts_ns < 0 || contest::trace_event_name(e.kind) == "?") std::abort();
    return 0;
}
