#pragma once
// What a load says about itself: its entry (LoadInfo), which each load's
// file defines for its own load; the list of the entries is registry.h's.
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "loads/load.h"

namespace contest {

// What kind of load it is, as stress-ng classes its stressors. A set of
// these: LoadClass::io | LoadClass::filesystem.
enum class LoadClass : unsigned {
    reference = 1u << 0,    // does no work: the yardstick (no Loads, no progress check)
    warm_caches = 1u << 1,  // runs straight after the previous run; caches not dropped
    cpu = 1u << 2,
    scheduler = 1u << 3,
    memory = 1u << 4,
    io = 1u << 5,
    filesystem = 1u << 6,
    user = 1u << 7,  // the user's own command (--load-cmd): what it loads is theirs to say
};
constexpr LoadClass operator|(LoadClass a, LoadClass b) {
    return static_cast<LoadClass>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(LoadClass set, LoadClass c) {
    return (static_cast<unsigned>(set) & static_cast<unsigned>(c)) != 0;
}

// Which of the named sets (`contest run default`, `all`) a load is in.
enum class LoadSets {
    default_and_all,  // the standard suite
    all_only,         // costly or needs something extra (a tool, another disk)
    by_name,          // the user's own (--load-cmd): runs only when named
};

std::optional<std::string> available_everywhere(const LoadOptions&);

struct LoadInfo {
    std::string_view name;
    std::string_view help;                 // what it does, one line
    std::string_view unit = {};            // e.g. "MiB written"; empty for no_load/cacherun
    double unit_divisor = 1;               // LoadCounters::units / unit_divisor = Loads
    std::string_view secondary_unit = {};  // e.g. "passes"; empty when unused
    double secondary_divisor = 1;
    LoadClass classes;
    LoadSets sets = LoadSets::default_and_all;
    // Its own settings, each an option of `contest run` and `contest load`.
    std::span<const LoadOption* const> options = {};
    // Why this load cannot run here (missing tool, missing option), or nullopt.
    std::optional<std::string> (*unavailable)(const LoadOptions&) = available_everywhere;
    // A function, not a pointer: a --load-cmd entry's factory holds its command.
    std::function<std::unique_ptr<Load>(const LoadEnv&)> make;

    bool does_work() const { return !has(classes, LoadClass::reference); }
    bool drops_caches() const { return !has(classes, LoadClass::warm_caches); }
    bool in_default() const { return sets == LoadSets::default_and_all; }
    bool in_all() const { return sets != LoadSets::by_name; }
    // Whether the load counts its work (Loads); a --load-cmd without a units
    // command does not, and its Loads is "-".
    bool counts_work() const { return does_work() && !unit.empty(); }
    // The load's options and the values it will use: for the result file.
    nlohmann::json options_json(const LoadOptions& given) const;
};

}  // namespace contest
