#pragma once
// The one explicit table of every load contest knows, in contest's order.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loads/load.h"

namespace contest {

struct LoadInfo {
    std::string_view name;
    std::string_view description;
    std::string_view unit;            // e.g. "MiB written"; empty for no_load/cacherun
    double unit_divisor;              // LoadCounters::units / unit_divisor = Loads
    std::string_view secondary_unit;  // e.g. "passes"; empty when unused
    double secondary_divisor;
    bool does_work;     // false: no_load, cacherun (no progress check, no Loads)
    bool drops_caches;  // false: cacherun runs straight after the previous run, warm
    bool in_default;    // part of the `default` set
    bool in_all;        // part of the `all` set
    // Why this load cannot run here (missing tool, missing option), or nullopt.
    std::optional<std::string> (*unavailable)(const LoadOptions&);
    std::unique_ptr<Load> (*make)(const LoadEnv&);
};

std::span<const LoadInfo> load_registry();
const LoadInfo* find_load(std::string_view name);

// Expands `default`, `all` and plain names into the loads to run, in the
// order given (duplicates removed). Unknown names throw UsageError; a load
// that is unavailable here throws EnvironmentError with its reason, except
// that `all` skips unavailable loads with a warning on stderr.
std::vector<const LoadInfo*> resolve_loads(const std::vector<std::string>& names,
                                           const LoadOptions& options);

// Position in contest's order, for sorting report blocks; unknown names last.
std::size_t load_order(std::string_view name);

}  // namespace contest
