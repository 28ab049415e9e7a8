#pragma once
// The user's own command as a load (--load-cmd NAME=CMD): its entry, made
// when the option is read. The registry (registry.cpp) lists it.
#include <optional>
#include <string>

#include "loads/load_info.h"

namespace contest {

// A new entry for the command load NAME, kept for the process's life.
// Throws UsageError for a command that is empty or has an unbalanced quote.
const LoadInfo& make_command_load_entry(const std::string& name, const std::string& command);

// The command of a command load's entry, or nullopt for any other load.
std::optional<std::string> command_of(const LoadInfo& info);

// The units command of the command load `info` (its Loads: what that
// command prints). Throws UsageError as make_command_load_entry does.
void set_units_command(const LoadInfo& info, const std::string& units_command);

}  // namespace contest
