#pragma once
// --boot-status: where the --boot run in a results folder is, said on
// stdout from its state (read as untrusted, as every step reads it), the
// step under way and whose the machine's unit is.
#include <filesystem>

namespace contest {

// kExitOk, also when there is no run in results (said).
int print_boot_status(const std::filesystem::path& results);

}  // namespace contest
