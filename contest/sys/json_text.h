#pragma once
// JSON as contest writes it. nlohmann's dump throws on a string that is not
// UTF-8, and contest's text comes from users and machines (a command, a path,
// a hostname, a log line) in any bytes: everything it writes as JSON goes
// through here, so that text can never make a write fail.
#include <string>

#include <nlohmann/json.hpp>

namespace contest {

// j with every string, object keys included, made valid UTF-8 by valid_utf8
// (contest/sys/text.h). For nlohmann::json and nlohmann::ordered_json (the
// reports, whose keys keep their order).
template <typename Json>
Json valid_utf8_json(const Json& j);

// The text of valid_utf8_json(j), indented by `indent` (-1: on one line).
// Dumped with nlohmann's replacing error handler as well, so that it cannot
// throw on text whatever the caller built.
template <typename Json>
std::string json_text(const Json& j, int indent = 2);

}  // namespace contest
