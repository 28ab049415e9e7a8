// libFuzzer: the result-file reader on arbitrary bytes. Any bytes either
// read as a result or are refused with a UsageError; a result read once is
// written and read back to the same JSON.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"
#include "contest/sys/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    contest::ResultFile f;
    try {
        f = contest::result_from_json(j, "fuzz.json");
    } catch (const contest::UsageError&) {
        return 0;
    }
    const auto written = contest::to_json(f);
    const auto again = contest::to_json(contest::result_from_json(written, "written.json"));
    if (again != written) std::abort();
    return 0;
}
