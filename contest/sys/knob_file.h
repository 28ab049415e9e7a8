#pragma once
// A kernel setting as a file (/sys, /proc/sys, debugfs, or any plain file
// standing in for one): its current value, and writing a value to it.
#include <filesystem>
#include <optional>
#include <string>

namespace contest {

// The current value: for a file listing the choices with the chosen one
// bracketed ("none [mq-deadline] bfq", "always [madvise] never", or
// "none voluntary (full)" for the preemption mode), the bracketed word;
// otherwise the content without its trailing newline. nullopt and `why`
// when the file cannot be read.
std::optional<std::string> read_knob_file(const std::filesystem::path& path, std::string& why);

// The chosen word of such content, as above.
std::string chosen_value(const std::string& content);

// Writes value (one write, as `echo value > path` does); the error text when
// the kernel (or the file system) refuses it, nullopt on success.
std::optional<std::string> write_knob_file(const std::filesystem::path& path,
                                           const std::string& value);

}  // namespace contest
