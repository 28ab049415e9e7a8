#include "contest/sys/json_text.h"

#include "contest/sys/text.h"

namespace contest {

template <typename Json>
Json valid_utf8_json(const Json& j) {
    switch (j.type()) {
        case Json::value_t::string: {
            const auto& s = j.template get_ref<const std::string&>();
            return is_valid_utf8(s) ? j : Json(valid_utf8(s));
        }
        case Json::value_t::array: {
            Json out = Json::array();
            for (const auto& v : j) out.push_back(valid_utf8_json(v));
            return out;
        }
        case Json::value_t::object: {
            Json out = Json::object();
            // Two keys that differ only in invalid bytes become one key,
            // holding the value of the last of them.
            for (const auto& [k, v] : j.items()) out[valid_utf8(k)] = valid_utf8_json(v);
            return out;
        }
        default:
            return j;
    }
}

template <typename Json>
std::string json_text(const Json& j, int indent) {
    return valid_utf8_json(j).dump(indent, ' ', false, Json::error_handler_t::replace);
}

template nlohmann::json valid_utf8_json(const nlohmann::json&);
template nlohmann::ordered_json valid_utf8_json(const nlohmann::ordered_json&);
template std::string json_text(const nlohmann::json&, int);
template std::string json_text(const nlohmann::ordered_json&, int);

}  // namespace contest
