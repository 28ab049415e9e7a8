#pragma once
// This machine's name, as gethostname(2) gives it ("" when it cannot), and
// the user's login name: who did what in a lab's shared database.
#include <string>

namespace contest {

std::string host_name();

// The effective user's login name (getpwuid), its uid as text when it has none.
std::string login_name();

}  // namespace contest
