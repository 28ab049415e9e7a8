#pragma once
// The result files under paths and one file's bytes, as read_result_paths
// (result_file.h) walks and reads them, for a reader that takes the files
// one at a time and needs their text itself (the history's import: a file
// is known by its bytes' SHA-256). Defined in result_file.cpp, beside the
// walk and the read they share with read_result_paths.
#include <filesystem>
#include <string>
#include <vector>

namespace contest {

// The *.json files read_result_paths would read, unread: sorted, each once;
// what cannot be walked is reported through `bad`, one line each.
std::vector<std::filesystem::path> result_file_paths(
    const std::vector<std::filesystem::path>& paths, std::vector<std::string>& bad);

// One result file's bytes as read_result_file takes them: a regular file
// of at most kMaxResultFileBytes, else a UsageError naming it and the cause.
std::string read_result_text(const std::filesystem::path& path);

}  // namespace contest
