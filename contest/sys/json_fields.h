#pragma once
// Reading a field of JSON contest did not write itself (a result file, a
// state): a field that is missing or of another type reads as none.
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

// The string at `key` of `j`, "" when j is no object, or the field is
// missing or no string (a fact that could not be read is an object with its
// reason).
inline std::string string_at(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace contest
