#pragma once
// Every way contest writes a number as text, in one place: each is a format
// a reader (or a snapshot test) relies on, so a table, an SVG and a message
// that show the same kind of number show it the same way.
#include <string>

namespace contest {

// A number as the user would write it: 1000, 0.05, 1048576 (%.15g).
std::string number_text(double v);

// `decimals` places after the point (%.*f); "-" where undefined (NaN,
// infinite); never "-0.0", which says a sign the number does not have.
std::string fixed(double value, int decimals);

// Six significant digits, shortest form (%g): 0.05, 1e-06, 123457; empty
// where undefined.
std::string six_digits(double value);

// An SVG coordinate or length: one decimal (%.1f), as it falls.
std::string svg_number(double v);

// A span of seconds as a clock shows it: "4:05", "1:02:03" (rounded, never
// below zero).
std::string clock_duration(double seconds);

}  // namespace contest
