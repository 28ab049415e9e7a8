// libFuzzer: text on its way into JSON. valid_utf8 gives valid UTF-8 for any
// bytes, keeps what already is, and json_text writes it so that a JSON
// reader gives exactly that text back.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/sys/json_text.h"
#include "contest/sys/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string valid = contest::valid_utf8(text);
    if (!contest::is_valid_utf8(valid)) std::abort();
    if (contest::is_valid_utf8(text) != (valid == text)) std::abort();
    const nlohmann::json j = {{std::string(text), std::string(text)}};
    const auto back = nlohmann::json::parse(contest::json_text(j));  // throws on invalid UTF-8
    if (back != nlohmann::json{{valid, valid}}) std::abort();
    return 0;
}
