#pragma once
// The environment every compile runs in, so that two runs (and two machines)
// build the same thing the same way.
#include <string>
#include <vector>

namespace contest {

// "NAME=value" overrides: C locale (compiler messages, sort orders), no
// ccache (it would turn the compile into cache lookups), no inherited
// MAKEFLAGS (a parent make's -j or jobserver would change the parallelism),
// and kbuild's timestamp, user and host fixed.
std::vector<std::string> fixed_build_environment();

}  // namespace contest
