#pragma once
// Whether a path lies in a folder, by its components (so /tmpfoo is not in
// /tmp). Both paths as the caller resolved them: nothing is read here.
#include <filesystem>

namespace contest {

// Strictly below root: root itself is not.
bool path_below(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace contest
