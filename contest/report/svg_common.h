#pragma once
// What the SVG drawings share: text escaping, number format, axis ticks and
// the palette, so every picture contest draws reads alike.
#include <string>

#include "contest/sys/number_text.h"

namespace contest {

// Okabe-Ito: told apart by most colour-blind readers, and in greyscale.
inline constexpr const char* kSvgPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                              "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

std::string escape_xml(const std::string& text);
// An SVG document's opening: the XML declaration, the <svg> element of that
// size (fonts every picture shares), its <title> and a white background.
// Each line ends in a newline; the caller closes the </svg>.
std::string svg_document_head(double width, double height, int font_size, const std::string& title);
// A step of 1, 2, 2.5 or 5 times a power of ten giving about five ticks up to top.
double tick_step(double top);
// A tick's label with as many decimals as the step needs.
std::string tick_label(double v, double step);

}  // namespace contest
