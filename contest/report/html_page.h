#pragma once
// What contest's HTML pages share (the report's and compare's page, the
// history's trend page): the escaping every text from outside goes through,
// the page's head with its Content-Security-Policy, the style, paragraphs,
// and drawings inline. No script and nothing fetched: the policy forbids
// both, so a page reads the same saved, mailed or opened from a web server.
#include <string>

namespace contest {

// Text for the page, in an element or a double-quoted attribute: made valid
// UTF-8, then & < > " escaped. Every text from a result file or a database
// goes through here.
std::string escape_html(const std::string& text);

// The page up to its <h1>, which is the title: the doctype, the charset, a
// Content-Security-Policy that allows nothing but inline style (no script,
// no image, font or style fetched), the title and the shared style with
// `extra_style` after it.
std::string html_page_head(const std::string& title, const std::string& extra_style = "");
inline constexpr const char* kHtmlPageEnd = "</body>\n</html>\n";

// A <p> of text, its lines kept apart by <br>; of class cls when given.
std::string html_paragraph(const std::string& text, const char* cls = nullptr);

// A drawing as an element of the page: without the XML declaration that
// begins the standalone file.
std::string inline_svg(const std::string& svg);

}  // namespace contest
