#pragma once
// Whether anyone but root (or this user) could change what a path names: a
// program root runs, or a file it writes, from a folder another user can
// write is that user's to swap (a link, another binary). Every folder from
// `/` down counts: whoever can write a folder above can rename the one below
// away and put their own in its place; a sticky /tmp-like folder stops
// that for a subfolder of root's (or this user's), not for one another
// user owns.
#include <filesystem>
#include <optional>
#include <string>

namespace contest {

// Why someone other than root or this user could change real or a folder
// above it (a folder owned by another user, or writable by its group or
// others (above real: and not sticky), or a symbolic link or something else where a folder should
// be); nullopt when nobody could. real is absolute and resolved; checking stops at its first
// missing step (what is made below it is made by this user).
std::optional<std::string> folder_open_to_others(const std::filesystem::path& real);

// The same for a file: its folders as above, and the file itself (when it
// exists) a regular file, no link, owned by root or this user, not writable
// by its group or others.
std::optional<std::string> file_open_to_others(const std::filesystem::path& real);

}  // namespace contest
