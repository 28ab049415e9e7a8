#pragma once
// --boot-status's facts: the --boot run in a results folder, read from its
// journal (as untrusted, as every step reads it), the step under way and
// whose the machine's unit is. The reboot place names them for the outputs
// table, which renders them (report/boot_status_text.h).
#include <sys/types.h>

#include <filesystem>
#include <optional>

#include "contest/boot/boot_state.h"

namespace contest {

struct BootRunLook {
    std::filesystem::path journal;   // the run's, where it is or would be
    std::optional<BootRunFile> run;  // none: no --boot run in the folder
    pid_t step = 0;                  // a step under way: its pid
    // The journal the machine's unit advances (none without a unit of
    // contest's), and that unit's file.
    std::optional<std::filesystem::path> unit_journal;
    std::filesystem::path unit;
};

BootRunLook look_at_boot_run(const std::filesystem::path& results);

}  // namespace contest
