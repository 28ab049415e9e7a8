#include "contest/boot/boot_status.h"

#include <iostream>

#include "contest/boot/boot_files.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/text.h"

namespace contest {

namespace fs = std::filesystem;

int print_boot_status(const fs::path& results) {
    const fs::path path = boot_state_path(results);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        std::cout << "no boot run in " << results.string() << "\n";
        return kExitOk;
    }
    const BootRunFile run = read_boot_run(path);
    const BootState& s = run.state;
    const std::vector<JournalTurn>& turns = run.turns.list;
    std::size_t taken = 0, failed = 0;
    for (const auto& t : turns) {
        taken += t.status == TurnStatus::done;
        failed += t.status == TurnStatus::boot_failed;
    }
    std::cout << "boot run " << s.started_at << ": " << boot_phase_name(s.phase)
              << (s.note.empty() ? "" : " (" + printable(s.note) + ")") << "\n"
              << "  method " << boot_method_name(s.method) << ", " << turns.size()
              << " turns: " << taken << " taken, " << failed << " failed, "
              << turns.size() - taken - failed << " to go; " << s.boots_asked
              << " boots asked of at most " << s.boot_max << "\n"
              << "  started in " << printable(s.start_release) << " (" << printable(s.start_cmdline)
              << ")\n";
    for (const auto& l : s.labels)
        std::cout << "  " << printable(l.label) << ": " << printable(l.kernel)
                  << (l.cmdline.empty() ? "" : "  cmdline: " + printable(l.cmdline)) << "\n";
    for (const auto& t : turns)
        std::cout << "  round " << t.round << "  " << printable(s.labels[t.label].label) << "  "
                  << turn_status_name(t.status) << "\n";
    for (const auto& b : s.boots)
        std::cout << "  boot " << printable(b.at) << "  expected " << printable(b.expected)
                  << "  got " << printable(b.release) << "  up " << b.up_s << " s  "
                  << printable(b.outcome) << "\n";
    if (const pid_t step = FileLock::held_by(boot_lock_path(path)); step > 0)
        std::cout << "  a step under way: pid " << step << "\n";
    if (const auto named = boot_unit_state(s.unit_root); named == path)
        std::cout << "  unit " << boot_unit_path(s.unit_root).string() << "\n";
    else if (named)
        std::cout << "  the machine's unit is another run's (" << printable(named->string())
                  << ")\n";
    return kExitOk;
}

}  // namespace contest
