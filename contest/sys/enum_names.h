#pragma once
// The one way an enum and the words for it go together: a constexpr table
// of {value, name} pairs that both directions read, so a name written and
// the name read back cannot drift apart.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace contest {

template <typename Enum>
struct EnumName {
    Enum value;
    std::string_view name;
};

// An enum's words where records are read and written as JSON
// (sys/json_record.h): specialise beside the enum's table, in its header,
// with `names` (the table) and `what` (what one is called in a refusal).
template <typename Enum>
struct JsonWords;

// The table's name for value; "?" for a value the table lacks.
template <typename Enum, std::size_t N>
constexpr std::string_view name_in(const std::array<EnumName<Enum>, N>& table, Enum value) {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return "?";
}

// The value the table names `name`, or nothing.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_in(const std::array<EnumName<Enum>, N>& table,
                                       std::string_view name) {
    for (const auto& entry : table)
        if (entry.name == name) return entry.value;
    return std::nullopt;
}

// The table's names for a message: with separator between them and
// last_separator before the last ("a, b or c"; "a|b|c").
template <typename Enum, std::size_t N>
std::string names_in(const std::array<EnumName<Enum>, N>& table, std::string_view separator,
                     std::string_view last_separator) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) out += i + 1 == N ? last_separator : separator;
        out += table[i].name;
    }
    return out;
}

}  // namespace contest
