#pragma once
// `contest help man` and `contest help bash-completion`: the manual page and
// the completion script, made from the commands' option tables and the load
// table each time, so that neither can fall behind the binary.
#include <string>

namespace contest {

// The manual page, in roff (man(7)).
std::string man_page();
// A bash completion script: commands, each command's options, load names.
std::string bash_completion();

}  // namespace contest
