#include "contest/sys/text.h"

#include <cstdio>
#include <sstream>

namespace contest {
namespace {

// The length of the valid UTF-8 sequence at the start of s (not empty), and
// the character it encodes; 0 when s does not start with one (a stray
// continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut
// short).
std::size_t utf8_length(std::string_view s, char32_t& cp) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = b(0);
    std::size_t n = 0;
    if (lead < 0x80) {
        cp = lead;
        return 1;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
        n = 2;
        cp = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        n = 3;
        cp = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        n = 4;
        cp = lead & 0x07;
    } else {
        return 0;
    }
    if (s.size() < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        if ((b(i) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (b(i) & 0x3f);
    }
    static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kSmallest[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
    return n;
}

// The same for a character other than a C1 control (U+0080..U+009F), which
// some terminals obey as escapes.
std::size_t printable_utf8_length(std::string_view s) {
    char32_t cp = 0;
    const std::size_t n = utf8_length(s, cp);
    return cp >= 0x80 && cp <= 0x9f ? 0 : n;
}

bool is_control(unsigned char c) {
    return c < 0x20 || c == 0x7f;
}

}  // namespace

std::size_t printable_char_length(std::string_view s) {
    if (s.empty()) return 0;
    const auto c = static_cast<unsigned char>(s[0]);
    if (c < 0x80) return is_control(c) ? 0 : 1;
    return printable_utf8_length(s);
}

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        if (std::size_t n = printable_char_length(text.substr(i))) {
            out.append(text.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(text[i]);
        switch (c) {
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            case 0x1b:
                out += "\\e";
                break;
            default: {
                char hex[5];
                std::snprintf(hex, sizeof hex, "\\x%02x", c);
                out += hex;
            }
        }
        ++i;
    }
    return out;
}

std::string valid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        char32_t cp = 0;
        if (std::size_t n = utf8_length(text.substr(i), cp)) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
            ++i;
        }
    }
    return out;
}

bool is_valid_utf8(std::string_view text) {
    std::size_t i = 0;
    char32_t cp = 0;
    while (i < text.size()) {
        const std::size_t n = utf8_length(text.substr(i), cp);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

bool is_printable(std::string_view text) {
    return printable(text) == text;
}

std::optional<std::string> label_problem(std::string_view label) {
    if (label.empty()) return "is empty";
    if (label.size() > kMaxLabelBytes)
        return "is " + std::to_string(label.size()) + " bytes long (at most " +
               std::to_string(kMaxLabelBytes) + ")";
    std::string why = "'";
    why.append(printable(label)).append("' ");
    if (!is_printable(label)) return why.append("has control characters");
    if (label == "." || label == "..") return why.append("names a folder");
    if (label.find('/') != std::string_view::npos)
        return why.append("has a '/' (it names a folder under the results)");
    return std::nullopt;
}

std::vector<std::string> split_commas(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        out.emplace_back(text.substr(start, comma - start));
        if (comma == std::string_view::npos) return out;
        start = comma + 1;
    }
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string trim_blanks(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return "";
    return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

std::vector<std::string> split_names(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& value : values)
        for (const auto& piece : split_commas(value)) {
            std::istringstream words(piece);
            for (std::string w; words >> w;) out.push_back(w);
        }
    return out;
}

}  // namespace contest
