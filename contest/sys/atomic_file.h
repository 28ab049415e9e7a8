#pragma once
// Files replaced whole: what a reader (or a crash) sees is the old content or
// the new, never half of one. Result files, summaries, plots and notes.
#include <filesystem>
#include <optional>
#include <string>

namespace contest {

// Write to a new temporary file in the same folder, fsync, rename, fsync the
// folder: a reader (or a crash) sees the old file or the new one, never half
// of one. When any step fails (no space, a read-only file system, no
// permission) the temporary is removed, the file at path is left as it was,
// and the one-line reason naming the path and the cause is returned.
std::optional<std::string> try_write_file_atomically(const std::filesystem::path& path,
                                                     const std::string& content);
// The same, throwing EnvironmentError with that reason.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);
// A new file at path, whole (written and synced as above, then linked in
// place: link(2) never replaces): false, and nothing made, when something
// is at path already; EnvironmentError naming the path and the cause when
// it cannot be written. What two contests racing for one name need: one of
// them makes the file, the other learns it is taken.
bool create_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace contest
