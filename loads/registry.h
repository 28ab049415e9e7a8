#pragma once
// The one explicit list of the loads' entries (load_info.h), in contest's
// order, and the --load-cmd loads the user adds after them.
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loads/load_info.h"

namespace contest {

// contest's loads in its order, then those the user defined (--load-cmd).
std::span<const LoadInfo* const> load_registry();
const LoadInfo* find_load(std::string_view name);

// --load-cmd NAME=CMD: the user's own command as a load called NAME, listed
// after contest's for the rest of the process. Defining the same again is a
// no-op. Throws UsageError, naming the option, for a name that is not
// lowercase letters, digits and '_', that is contest's (a load, `default`,
// `all`) or already defined as another command, and for an empty command.
const LoadInfo& define_command_load(const std::string& name, const std::string& command);
// --load-cmd-units NAME=CMD: what counts NAME's work. Throws UsageError when
// NAME is no --load-cmd defined before, or CMD is empty.
void set_command_load_units(const std::string& name, const std::string& units_command);

// UsageError unless name is a load's, `default` or `all`.
void check_load_name(const std::string& name);

// Expands `default`, `all` and plain names into the loads to run, in the
// order given (duplicates removed). Unknown names throw UsageError; a load
// that is unavailable here throws EnvironmentError with its reason, except
// that `all` skips unavailable loads with a warning on stderr.
std::vector<const LoadInfo*> resolve_loads(const std::vector<std::string>& names,
                                           const LoadOptions& options);

// The load options whose value is a path (a folder or file: text, not a
// number), by name.
std::set<std::string> load_path_options();

// Position in contest's order, for sorting report blocks; unknown names last.
std::size_t load_order(std::string_view name);

}  // namespace contest
