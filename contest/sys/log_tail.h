#pragma once
// The last lines of a workload's log, shown when a run fails so the user sees
// the compiler's error without opening the file.
#include <filesystem>
#include <string>

namespace contest {

// The last `lines` lines of the file (fewer if it has fewer), each ending in
// '\n'. Reads only the end of the file, so a multi-megabyte build log costs
// nothing. An unreadable or missing file, a symbolic link (not followed) and
// anything but a regular file (a FIFO is not waited on) give "".
std::string tail_of_file(const std::filesystem::path& file, int lines);

}  // namespace contest
