#include "contest/boot/boot_status.h"

#include "contest/boot/boot_files.h"
#include "contest/boot/boot_unit.h"
#include "contest/sys/file_lock.h"

namespace contest {

namespace fs = std::filesystem;

BootRunLook look_at_boot_run(const fs::path& results) {
    BootRunLook look;
    look.journal = boot_state_path(results);
    std::error_code ec;
    if (!fs::exists(look.journal, ec)) return look;
    look.run = read_boot_run(look.journal);
    look.step = FileLock::held_by(boot_lock_path(look.journal));
    look.unit_journal = boot_unit_state(look.run->state.unit_root);
    look.unit = boot_unit_path(look.run->state.unit_root);
    return look;
}

}  // namespace contest
