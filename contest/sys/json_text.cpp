#include "contest/sys/json_text.h"

#include "contest/sys/text.h"

namespace contest {

nlohmann::json valid_utf8_json(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::string: {
            const auto& s = j.get_ref<const std::string&>();
            return is_valid_utf8(s) ? j : nlohmann::json(valid_utf8(s));
        }
        case nlohmann::json::value_t::array: {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& v : j) out.push_back(valid_utf8_json(v));
            return out;
        }
        case nlohmann::json::value_t::object: {
            nlohmann::json out = nlohmann::json::object();
            // Two keys that differ only in invalid bytes become one key,
            // holding the value of the last of them in key order.
            for (const auto& [k, v] : j.items()) out[valid_utf8(k)] = valid_utf8_json(v);
            return out;
        }
        default:
            return j;
    }
}

std::string json_text(const nlohmann::json& j, int indent) {
    return valid_utf8_json(j).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace contest
