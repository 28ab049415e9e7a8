#pragma once
// Small text helpers shared by every layer.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace contest {

// The items, each turned into text by `to_text`, with `separator` between
// them: join(names, ", ") == "a, b, c"; join(rows, ",", quote).
template <typename Range, typename ToText = std::identity>
std::string join(const Range& items, std::string_view separator, ToText to_text = {}) {
    std::string out;
    bool first = true;
    for (const auto& item : items) {
        if (!first) out += separator;
        first = false;
        out += std::invoke(to_text, item);
    }
    return out;
}

// The pieces between commas, empty ones kept (the caller says what an empty
// one means): "a,,b" gives {"a", "", "b"}, "" gives {""}.
std::vector<std::string> split_commas(std::string_view text);

// The lines of text, without their newlines; a last line without one
// counts, a trailing newline makes no empty line: "a\nb\n" gives {"a", "b"}.
std::vector<std::string> split_lines(const std::string& text);

// text without the blanks (space, tab, CR, newline) at its two ends.
std::string trim_blanks(std::string_view text);

// The names in values, where a value may hold several separated by commas
// or white space ("a,b" on the command line, "a b" in a config file);
// empty ones are dropped.
std::vector<std::string> split_names(const std::vector<std::string>& values);

// Text safe to put in a message on a terminal: control characters (C0, DEL
// and the C1 range, which some terminals obey as escapes) and bytes that are
// not valid UTF-8 become \n, \t, \r, \e or \xNN; valid UTF-8 is kept, so a
// label like "6.1-für-rt" reads as it is.
std::string printable(std::string_view text);

// Text that is valid UTF-8, for everything that goes into JSON (nlohmann
// refuses to write anything else): each byte that does not belong to a
// valid UTF-8 sequence (a stray continuation byte, an overlong form, a
// surrogate, a sequence cut short, 0xF5..0xFF) becomes U+FFFD, the
// replacement character; valid text, control characters included, is kept.
std::string valid_utf8(std::string_view text);

// The length of the character at the start of s that printable() keeps as
// it is (ASCII other than a control, or valid UTF-8 other than a C1
// control); 0 when s starts with any other byte, or is empty.
std::size_t printable_char_length(std::string_view s);

// True when valid_utf8() would change nothing.
bool is_valid_utf8(std::string_view text);

// True when printable() would change nothing.
bool is_printable(std::string_view text);

// What a label (a folder name under the results folder, a row name in every
// table) must be: not empty, at most kMaxLabelBytes, printable, no '/', not
// "." or "..". Returns why `label` is not one, or nothing when it is.
inline constexpr std::size_t kMaxLabelBytes = 200;
std::optional<std::string> label_problem(std::string_view label);

}  // namespace contest
