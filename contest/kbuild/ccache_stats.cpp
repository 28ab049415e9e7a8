#include "contest/kbuild/ccache_stats.h"

#include <sstream>

#include "contest/sys/spawn.h"

namespace contest::kbuild {

bool ccache_installed() {
    return find_on_path("ccache").has_value();
}

std::optional<CcacheCounts> parse_ccache_stats(const std::string& text) {
    CcacheCounts c;
    bool seen = false;
    std::istringstream in(text);
    std::string name;
    long long value = 0;
    while (in >> name >> value) {
        if (name == "direct_cache_hit" || name == "preprocessed_cache_hit") {
            c.hits += value;
            seen = true;
        } else if (name == "cache_miss") {
            c.misses += value;
            seen = true;
        }
    }
    if (!seen) return std::nullopt;
    return c;
}

std::optional<CcacheCounts> ccache_counts() {
    if (!ccache_installed()) return std::nullopt;
    return parse_ccache_stats(command_output({"ccache", "--print-stats"}));
}

}  // namespace contest::kbuild
