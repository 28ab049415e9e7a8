#pragma once
// The load options shared by `contest run` and `contest load`, made from
// the options each load's entry declares (LoadInfo::options).
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "loads/load.h"

namespace contest {

// $XDG_CACHE_HOME/contest, else ~/.cache/contest, else /tmp/contest.
std::filesystem::path default_workdir();

// The load options as parsed (option name -> text, and the names given),
// before they are checked into LoadOptions.
struct LoadOptionText {
    std::map<std::string, std::string, std::less<>> values;
    std::set<std::string, std::less<>> given;
    // --load-cmd and --load-cmd-units, each NAME=CMD: defined as they are read.
    std::vector<std::string> load_cmds, load_cmd_units;
};

// The loads' rows of a command's table, each of the given scope: one per
// distinct LoadOption of the registry's entries, its help prefixed with the
// loads that use it ("process_load: bytes per record"); and --load-cmd
// NAME=CMD, --load-cmd-units NAME=CMD, which define the user's own loads
// the moment they are read (so that a load name after them, or in the
// config file, finds the load).
std::vector<TableOption> load_option_rows(LoadOptionText& text, OptionScope scope);
// Checks the given values and moves them into lo. Throws UsageError.
void finish_load_options(LoadOptions& lo, const LoadOptionText& text);

}  // namespace contest
