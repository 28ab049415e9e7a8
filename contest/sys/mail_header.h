#pragma once
// A mail's header lines as strict mail programs take them: a value holding
// anything but ASCII (a commit's subject, a tag's name, an author's) as
// RFC 2047 encoded-words, and the MIME headers that say its body is UTF-8
// text sent as it is.
#include <string>
#include <string_view>

namespace contest {

// The longest header line written, as RFC 2047 has it for a line that
// holds encoded-words (and RFC 5322 recommends for any).
inline constexpr std::size_t kMailHeaderColumns = 76;

// "NAME: VALUE\n". A value of printable ASCII only is as it is (the caller
// may fold it at its spaces); any other is encoded whole as UTF-8 "B"
// encoded-words (=?UTF-8?B?...?=), each of whole characters, one a line, the
// lines after the first begun with a space (folded), none wider than
// kMailHeaderColumns: a reader decodes it back to the value.
std::string mail_header(std::string_view name, std::string_view value);

// MIME-Version, Content-Type (text/plain; charset=utf-8) and
// Content-Transfer-Encoding (8bit): a body of UTF-8 text lines.
inline constexpr const char* kPlainUtf8MailHeaders =
    "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
    "Content-Transfer-Encoding: 8bit\n";

}  // namespace contest
