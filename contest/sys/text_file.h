#pragma once
// Whole small files of /proc and /sys as text, with the reason when one
// can't be read (facts that can't be read say why).
#include <optional>
#include <string>

namespace contest {

// The file's text; nullopt with `why` ("<path>: <strerror>") when it can't be read.
std::optional<std::string> read_text_file(const std::string& path, std::string* why = nullptr);
// The first line without its newline; nullopt (and why) when unreadable.
std::optional<std::string> read_first_line(const std::string& path, std::string* why = nullptr);

}  // namespace contest
