#pragma once
// The ways contest writes a number as text that more than one place shares:
// each is a format a reader (or a snapshot test) relies on, so a table, an
// SVG and a message that show the same kind of number show it the same way.
// (A printed line of one command's own, such as `contest load`'s figures,
// spells its printf format where it prints.)
#include <charconv>
#include <string>
#include <type_traits>

namespace contest {

// A number as the user would write it: 1000, 0.05, 1048576 (%.15g).
std::string number_text(double v);
// A whole number: 1000, 18446744073709551615.
template <typename T>
std::string number_text(T v) requires std::is_integral_v<T> {
    return std::to_string(v);
}

// A number that reads back as the same number, for an option written back
// as words: the shortest text that does (to_chars), never %g's rounding.
template <typename T>
std::string exact_text(T v) requires std::is_arithmetic_v<T> {
    char text[64];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
    return std::string(text, ec == std::errc() ? end : text);
}

// `decimals` places after the point (%.*f); "-" where undefined (NaN,
// infinite); never "-0.0", which says a sign the number does not have.
std::string fixed(double value, int decimals);

// Six significant digits, shortest form (%g): 0.05, 1e-06, 123457; empty
// where undefined.
std::string six_digits(double value);

// Four significant digits, without an exponent from 10000 up (whole there):
// a measure's mean in "what else changed".
std::string four_digits(double v);

// An SVG coordinate or length: one decimal (%.1f), as it falls.
std::string svg_number(double v);

// A span of seconds as a clock shows it: "4:05", "1:02:03" (rounded, never
// below zero).
std::string clock_duration(double seconds);

// A span of seconds as a progress line says it: "12.3 s" (`decimals` places).
std::string seconds_text(double seconds, int decimals = 1);

}  // namespace contest
