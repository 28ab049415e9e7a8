#pragma once
// The list of saves owed to the results database (owed_saves.h) as text:
// `.history-owed` in a results folder, read as untrusted (any user who
// can write the folder can write it): bounded in bytes and entries, each
// entry checked and a bad one left out.
#include <cstddef>
#include <string>
#include <vector>

namespace contest::history {

// Entries the list keeps at the most: the oldest go beyond it (said), and
// `contest history import` of the folder brings anything in.
inline constexpr std::size_t kMostOwed = 10000;
// Bytes of the list read at the most.
inline constexpr std::size_t kMostOwedBytes = 8u << 20;

struct OwedSave {
    std::string database;  // the database's shown name (no password)
    std::string file;      // the result file, absolute
    std::string sha256;    // of its bytes at the save that failed
    std::string since;     // the first failed save of it (ISO 8601 UTC)
};

// The list's text read (untrusted): its good entries; a bad entry is left out
// and counted in `dropped` when given. Never throws.
std::vector<OwedSave> parse_owed_saves(const std::string& text, std::size_t* dropped = nullptr);
std::string owed_saves_text(const std::vector<OwedSave>& saves);

}  // namespace contest::history
