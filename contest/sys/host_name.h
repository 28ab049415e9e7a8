#pragma once
// This machine's name, as gethostname(2) gives it ("" when it cannot): who
// did what in a lab's shared database.
#include <string>

namespace contest {

std::string host_name();

}  // namespace contest
