#pragma once
// Small text helpers shared by every layer.
#include <functional>
#include <string>
#include <string_view>

namespace contest {

// The items, each turned into text by `to_text`, with `separator` between
// them: join(names, ", ") == "a, b, c"; join(rows, ",", quote).
template <typename Range, typename ToText = std::identity>
std::string join(const Range& items, std::string_view separator, ToText to_text = {}) {
    std::string out;
    bool first = true;
    for (const auto& item : items) {
        if (!first) out += separator;
        first = false;
        out += std::invoke(to_text, item);
    }
    return out;
}

}  // namespace contest
