#pragma once
// The running contest binary, copied: what `run --kernel` gives its guests to
// run, so a guest runs the very build its host runs.
#include <filesystem>

namespace contest {

// Copies the running contest binary to `to`: the file it runs from, even
// when that has been removed or replaced since it started (a relink).
// EnvironmentError when it cannot.
void copy_own_binary(const std::filesystem::path& to);

}  // namespace contest
