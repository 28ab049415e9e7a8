#pragma once
// One setting of a load's own, as its entry declares it: the command-line
// (and config-file) option, what it means, its default. The CLI makes its
// options from these; the load reads the value through the same object.
#include <optional>
#include <string>
#include <string_view>

namespace contest {

enum class LoadOptionKind {
    text,    // any text: a folder, a file
    number,  // a number within [min, max]
};

struct LoadOption {
    std::string_view name;        // --name, and the config file's key
    char short_name = 0;          // -x, or 0 for none
    std::string_view value_name;  // what --help shows after it: N, B, D, MiB
    std::string_view help;        // without the load's name: the CLI prefixes the loads using it
    std::string_view default_value = {};  // empty: none (help says what the load does then)
    LoadOptionKind kind = LoadOptionKind::text;
    double min = 0, max = 0;  // for numbers; max 0: no upper bound
    bool whole = false;       // for numbers: an integer
};

// Why value is not a valid value of option ("--record-bytes must be a whole
// number from 1 to 1048576"), or nullopt.
std::optional<std::string> check_option_value(const LoadOption& option, std::string_view value);

}  // namespace contest
