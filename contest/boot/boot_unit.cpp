#include "contest/boot/boot_unit.h"

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

fs::path wants_link(const fs::path& root) {
    return root / "etc/systemd/system/multi-user.target.wants" / kBootUnitName;
}

// systemd's quoting of one ExecStart word: in double quotes, with \ and "
// escaped, and % doubled (its specifiers).
std::string unit_word(const std::string& word) {
    std::string out = "\"";
    for (const char c : word) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '%') out += '%';
        out += c;
    }
    return out + "\"";
}

}  // namespace

fs::path boot_unit_path(const fs::path& root) {
    return root / "etc/systemd/system" / kBootUnitName;
}

std::string boot_unit_text(const fs::path& binary, const fs::path& state) {
    return "# Made by contest run --boot; removed when the run ends (contest run --boot-abort).\n"
           "[Unit]\n"
           "Description=contest: the next turn of a run across reboots\n"
           // After the boot, whichever of the two is its default target.
           "After=multi-user.target graphical.target\n"
           // The results folder (the state, contest's copy) may be a mount of its own.
           "RequiresMountsFor=" +
           unit_word(state.parent_path().string()) +
           "\n"
           "\n"
           "[Service]\n"
           // exec, not oneshot: the unit is started once contest is, so the
           // boot is over ("Startup finished") rather than still starting,
           // with systemd's status on the console, through the turn's runs.
           "Type=exec\n"
           "# A turn's runs take as long as they take.\n"
           "TimeoutStartSec=infinity\n"
           // contest makes cgroups of its own under the unit's.
           "Delegate=yes\n"
           "ExecStart=" +
           unit_word(binary.string()) + " run --boot-continue " + unit_word(state.string()) +
           "\n"
           // The journal only: a console (often serial) written during the
           // runs would be part of what they measure. --boot-status, or
           // journalctl -u contest-boot, to follow it.
           "StandardOutput=journal\n"
           "\n"
           "[Install]\n"
           "WantedBy=multi-user.target\n";
}

void install_boot_unit(const fs::path& root, const fs::path& binary, const fs::path& state) {
    const fs::path unit = boot_unit_path(root);
    std::error_code ec;
    fs::create_directories(wants_link(root).parent_path(), ec);
    if (ec)
        throw EnvironmentError("cannot make " + wants_link(root).parent_path().string() + ": " +
                               ec.message());
    write_file_atomically(unit, boot_unit_text(binary, state));
    fs::remove(wants_link(root), ec);
    fs::create_symlink(unit, wants_link(root), ec);
    if (ec)
        throw EnvironmentError("cannot enable " + unit.string() + " (" + wants_link(root).string() +
                               "): " + ec.message());
}

bool remove_boot_unit(const fs::path& root) {
    std::error_code ec;
    const bool link = fs::remove(wants_link(root), ec);
    const bool unit = fs::remove(boot_unit_path(root), ec);
    return link || unit;
}

}  // namespace contest
