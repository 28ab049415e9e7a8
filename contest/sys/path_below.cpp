#include "contest/sys/path_below.h"

#include <algorithm>

namespace contest {

bool path_below(const std::filesystem::path& path, const std::filesystem::path& root) {
    const auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
    return r == root.end() && p != path.end();
}

}  // namespace contest
