#pragma once
// ccache, when it is installed: the compiler a build is given (CC="ccache
// gcc"), and its hits and misses counted around a build.
#include <optional>
#include <string>

namespace contest::kbuild {

struct CcacheCounts {
    long long hits = 0, misses = 0;
};

// Whether ccache is on PATH.
bool ccache_installed();

// Its counters now (`ccache --print-stats`); nullopt without ccache, or
// when they cannot be read.
std::optional<CcacheCounts> ccache_counts();

// The counts from `ccache --print-stats`'s text (name, tab, value lines).
std::optional<CcacheCounts> parse_ccache_stats(const std::string& text);

}  // namespace contest::kbuild
