#pragma once
// The embedded workload: a deterministic C project of `translation_units`
// source files (structs, loops, inline functions from a shared header set)
// and a Makefile that builds it with $(CC) -O2. The same size always gives
// byte-identical files, so every machine compiles exactly the same code.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace contest {

// Bumped whenever the generated code changes, so result files say which
// project was compiled and old projects on disk are replaced.
inline constexpr int kSyntheticGeneratorVersion = 1;

struct GeneratedFile {
    std::filesystem::path relative_path;
    std::string content;
};

struct SyntheticProject {
    unsigned translation_units = 0;
    std::vector<GeneratedFile> files;
    std::uint64_t content_hash = 0;  // over every path and content, in order
    std::string hash_hex() const;
};

// Throws UsageError unless 1 <= translation_units <= kMaxSyntheticSize.
inline constexpr unsigned kMaxSyntheticSize = 100000;
SyntheticProject generate_synthetic_project(unsigned translation_units);

// Makes dir hold exactly the project: when its stamp file records the same
// hash and every file is there with the same content, nothing is touched
// (returns false); otherwise dir is emptied and written afresh, stamp last, so
// an interrupted write is redone next time (returns true).
bool write_synthetic_project(const SyntheticProject& project, const std::filesystem::path& dir);

// The stamp file's name inside the project folder.
inline constexpr const char* kSyntheticStampFile = ".contest-stamp";

}  // namespace contest
