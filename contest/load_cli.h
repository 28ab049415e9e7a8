#pragma once
// The load options shared by `contest run` and `contest load`.
#include <filesystem>
#include <string>

#include "contest/cli_common.h"
#include "loads/load.h"

namespace contest {

// $XDG_CACHE_HOME/contest, else ~/.cache/contest, else /tmp/contest.
std::filesystem::path default_workdir();

void add_load_options(po::options_description& d, LoadOptions& lo, std::string& io_other,
                      double& size_mib);
// Validates and moves the parsed strings into lo. Throws UsageError.
void finish_load_options(LoadOptions& lo, const std::string& io_other, double size_mib);

}  // namespace contest
