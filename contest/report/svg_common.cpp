#include "contest/report/svg_common.h"

#include <cmath>
#include <cstdio>

#include "contest/report/formats.h"

namespace contest {

std::string escape_xml(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string svg_document_head(double width, double height, int font_size,
                              const std::string& title) {
    const std::string w = svg_number(width), h = svg_number(height);
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
    out += w;
    out += "\" height=\"";
    out += h;
    out += "\" viewBox=\"0 0 ";
    out += w;
    out += ' ';
    out += h;
    out += "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"";
    out += std::to_string(font_size);
    out += "\">\n<title>";
    out += escape_xml(title);
    out += "</title>\n<rect x=\"0\" y=\"0\" width=\"";
    out += w;
    out += "\" height=\"";
    out += h;
    out += "\" fill=\"#ffffff\"/>\n";
    return out;
}

double tick_step(double top) {
    const double raw = top / 5;
    const double magnitude = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * magnitude >= raw) return m * magnitude;
    return 10 * magnitude;
}

std::string tick_label(double v, double step) {
    return fixed(v, step < 0.1 ? 2 : step < 1 ? 1 : 0);
}

}  // namespace contest
