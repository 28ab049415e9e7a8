// libFuzzer: the list of saves owed to the results database
// (.history-owed, in a results folder others may write). Any bytes
// read as a list of good entries (never a throw); a list read once is
// written and read back to the same entries.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "contest/history/owed_list.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace contest::history;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto saves = parse_owed_saves(text);
    if (saves.size() > kMostOwed) std::abort();
    const std::string written = owed_saves_text(saves);
    std::size_t dropped = 0;
    if (owed_saves_text(parse_owed_saves(written, &dropped)) != written || dropped != 0)
        std::abort();
    return 0;
}
