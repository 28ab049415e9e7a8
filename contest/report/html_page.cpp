#include "contest/report/html_page.h"

#include <algorithm>

#include "contest/report/svg_common.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

constexpr const char* kStyle =
    R"(body{font-family:sans-serif;margin:1.5em auto;max-width:80em;color:#111;padding:0 1em}
h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;vertical-align:top}
th{background:#f2f2f2;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.load th{background:#e4ecf5}
.verdict{background:#f7f7e8;border-left:4px solid #b8b83a;padding:.4em .8em}
.warning{background:#fbeaea;border-left:4px solid #c33;padding:.4em .8em}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
svg{max-width:100%;height:auto;display:block;margin:.5em 0;overflow:visible}
details{margin:.3em 0}summary{cursor:pointer}
)";

}  // namespace

std::string escape_html(const std::string& text) {
    return escape_xml(valid_utf8(text));
}

std::string html_page_head(const std::string& title, const std::string& extra_style) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"
           "<title>" +
           escape_html(title) + "</title>\n<style>\n" + kStyle + extra_style +
           "</style>\n</head>\n<body>\n<h1>" + escape_html(title) + "</h1>\n";
}

std::string html_paragraph(const std::string& text, const char* cls) {
    std::string out = cls ? "<p class=\"" + std::string(cls) + "\">" : "<p>";
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (start) out += "<br>";
        out += escape_html(text.substr(start, end - start));
        start = end + 1;
    }
    return out + "</p>\n";
}

std::string inline_svg(const std::string& svg) {
    if (svg.starts_with("<?xml")) return svg.substr(svg.find('\n') + 1);
    return svg;
}

}  // namespace contest
