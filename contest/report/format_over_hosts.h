#pragma once
// `contest compare --over-hosts`: a fleet's comparison (over_hosts.h) as
// text, markdown or JSON: a block a load, a row a host with its own
// verdict, then the line over the hosts.
#include <string>

#include "contest/analysis/over_hosts.h"

namespace contest {

// format: text, markdown, json or html. The level the lines over the hosts
// are judged at, and their intervals', are the comparison's (over.alpha).
std::string format_over_hosts(const OverHosts& over, const std::string& format);

}  // namespace contest
