#pragma once
#include <string>

namespace contest {

// Now, as result files and the results database record times: ISO 8601 in
// UTC to the second ("2026-12-05T16:48:14Z").
std::string utc_timestamp();

}  // namespace contest
