// libFuzzer: text on its way into JSON. valid_utf8 gives valid UTF-8 for any
// bytes, keeps what already is, and json_text writes it so that a JSON
// reader gives exactly that text back. A mail header of any printable text
// that is not all ASCII is ASCII lines of at most 76 columns.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/sys/json_text.h"
#include "contest/sys/mail_header.h"
#include "contest/sys/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string valid = contest::valid_utf8(text);
    if (!contest::is_valid_utf8(valid)) std::abort();
    if (contest::is_valid_utf8(text) != (valid == text)) std::abort();
    const nlohmann::json j = {{std::string(text), std::string(text)}};
    const auto back = nlohmann::json::parse(contest::json_text(j));  // throws on invalid UTF-8
    if (back != nlohmann::json{{valid, valid}}) std::abort();
    const std::string shown = contest::printable(text);
    const std::string header = contest::mail_header("Subject", shown);
    const bool ascii =
        std::all_of(shown.begin(), shown.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
    if (!ascii)
        for (const auto& line : contest::split_lines(header))
            if (line.size() > contest::kMailHeaderColumns ||
                line.find_first_not_of(
                    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~") != std::string::npos)
                std::abort();
    return 0;
}
