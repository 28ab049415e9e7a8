// What every load's entry and options share: reading an option's value,
// checking one, and the counters' failure note.
#include <charconv>
#include <cmath>
#include <cstdio>

#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "loads/load_info.h"

namespace contest {

void LoadCounters::fail(const std::string& why) {
    std::size_t n = std::min(why.size(), sizeof error - 1);
    why.copy(error, n);
    error[n] = '\0';
}

std::optional<std::string> available_everywhere(const LoadOptions&) {
    return std::nullopt;
}

namespace {

std::optional<double> parse_number(std::string_view text) {
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

}  // namespace

std::optional<std::string> check_option_value(const LoadOption& option, std::string_view value) {
    const std::string flag = "--" + std::string(option.name);
    if (option.kind == LoadOptionKind::text)
        return value.empty() ? std::optional<std::string>(flag + " needs a value") : std::nullopt;
    auto n = parse_number(value);
    const bool in_range = n && *n >= option.min && (option.max == 0 || *n <= option.max) &&
                          (!option.whole || std::floor(*n) == *n);
    if (in_range) return std::nullopt;
    std::string what = option.whole ? " must be a whole number" : " must be a number";
    if (option.max != 0)
        return flag + what + " from " + number_text(option.min) + " to " + number_text(option.max);
    return flag + what + " of at least " + number_text(option.min);
}

std::optional<std::string> LoadOptions::text(const LoadOption& option) const {
    if (auto it = values.find(option.name); it != values.end()) return it->second;
    if (!option.default_value.empty()) return std::string(option.default_value);
    return std::nullopt;
}

std::optional<double> LoadOptions::number(const LoadOption& option) const {
    auto value = text(option);
    if (!value) return std::nullopt;
    if (auto why = check_option_value(option, *value)) throw UsageError(*why);
    return parse_number(*value);
}

nlohmann::json LoadInfo::options_json(const LoadOptions& given) const {
    nlohmann::json j = nlohmann::json::object();
    for (const LoadOption* o : options) {
        auto value = given.text(*o);
        j[std::string(o->name)] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    }
    return j;
}

}  // namespace contest
