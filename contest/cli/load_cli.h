#pragma once
// The load options shared by `contest run` and `contest load`.
#include <filesystem>
#include <string>

#include "contest/cli/cli_common.h"
#include "loads/load.h"

namespace contest {

// $XDG_CACHE_HOME/contest, else ~/.cache/contest, else /tmp/contest.
std::filesystem::path default_workdir();

// The load options as parsed, before they are checked into LoadOptions.
struct LoadOptionText {
    std::string io_other;
    std::string tar_source;
    double size_mib = 0;
};

void add_load_options(po::options_description& d, LoadOptions& lo, LoadOptionText& text);
// Validates and moves the parsed text into lo. Throws UsageError.
void finish_load_options(LoadOptions& lo, const LoadOptionText& text);

}  // namespace contest
