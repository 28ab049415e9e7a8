// libFuzzer: a result file's content as the results database keeps it
// (base64 of a zlib stream: contest/sys/packed_text.h), which `contest
// export --db` unpacks from a database another program may have written.
// Any input either unpacks within the bound or is refused; whatever packs
// unpacks to itself.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "contest/sys/packed_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto unpacked = contest::unpacked_text(text, 1 << 20);
    if (unpacked && unpacked->size() > (1u << 20)) std::abort();
    const auto again = contest::unpacked_text(contest::packed_text(text), 1 << 20);
    if (!again || *again != text) std::abort();
    return 0;
}
