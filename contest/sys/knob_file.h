#pragma once
// A kernel setting as a file (under /proc/sys or /sys, debugfs included):
// its current value, and writing a value to it.
//
// contest runs as root, so a knob's path is checked at every open: with
// every link resolved it must lie under /proc/sys or /sys, and be a regular
// file (opened without blocking and without following a last link, so a
// FIFO cannot hang contest and a device is never read or written). It is
// read up to one page, as much as a sysfs attribute holds. The tests'
// stand-ins: the environment variable CONTEST_TEST_KNOB_ROOT names one more
// folder whose regular files count as kernel settings (docs/vary.md).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace contest {

// The most a knob's file may hold: one page, a sysfs attribute's size.
inline constexpr std::size_t kMaxKnobFileBytes = 4096;

// The environment variable naming the tests' stand-in folder.
inline constexpr const char* kTestKnobRootVariable = "CONTEST_TEST_KNOB_ROOT";

// The current value: for a file listing the choices with the chosen one
// bracketed ("none [mq-deadline] bfq", "always [madvise] never", or
// "none voluntary (full)" for the preemption mode), the bracketed word;
// otherwise the content without its trailing newline. nullopt and `why`
// ("PATH: it is a FIFO, not a kernel setting") when the file cannot be read
// or is not a kernel setting.
std::optional<std::string> read_knob_file(const std::filesystem::path& path, std::string& why);

// The chosen word of such content, as above.
std::string chosen_value(const std::string& content);

// Writes value (one write, as `echo value > path` does); the error text when
// the kernel (or the file system) refuses it or the file is not a kernel
// setting, nullopt on success.
std::optional<std::string> write_knob_file(const std::filesystem::path& path,
                                           const std::string& value);

}  // namespace contest
