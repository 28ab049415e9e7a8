#include "contest/boot/boot_unit.h"

#include <fcntl.h>

#include <algorithm>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

fs::path wants_link(const fs::path& root) {
    return root / "etc/systemd/system/multi-user.target.wants" / kBootUnitName;
}

const std::string kContinue = " run --boot-continue ";

// systemd's quoting of one word of a setting: in double quotes, with \ and
// " escaped, and % doubled (its specifiers); in ExecStart also $ doubled,
// which systemd expands there ($VAR, ${VAR}) and nowhere else.
std::string unit_word(const std::string& word, bool exec) {
    std::string out = "\"";
    for (const char c : word) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '%' || (exec && c == '$')) out += c;
        out += c;
    }
    return out + "\"";
}

// unit_word's ExecStart word read back; nullopt when word is not one.
std::optional<std::string> exec_word_text(const std::string& word) {
    if (word.size() < 2 || word.front() != '"' || word.back() != '"') return std::nullopt;
    std::string out;
    for (std::size_t i = 1; i + 1 < word.size(); ++i) {
        const char c = word[i];
        if (c == '\\' || ((c == '%' || c == '$') && word[i + 1] == c)) ++i;
        if (i + 1 >= word.size()) return std::nullopt;
        out += word[i];
    }
    return out;
}

}  // namespace

fs::path boot_unit_path(const fs::path& root) {
    return root / "etc/systemd/system" / kBootUnitName;
}

std::string unit_path_problem(const fs::path& path) {
    for (const char c : path.string())
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return printable(path.string()) +
                   " holds a control character, which a systemd unit cannot name";
    return "";
}

std::string boot_unit_text(const fs::path& binary, const fs::path& state,
                           const std::vector<fs::path>& mounts) {
    std::vector<std::string> folders = {state.parent_path().string()};
    for (const auto& m : mounts)
        if (std::find(folders.begin(), folders.end(), m.string()) == folders.end())
            folders.push_back(m.string());
    std::string requires_mounts = "RequiresMountsFor=";
    for (const auto& f : folders) {
        if (f != folders.front()) requires_mounts += ' ';
        requires_mounts += unit_word(f, false);
    }
    return "# Made by contest run --boot; removed when the run ends (contest run --boot-abort).\n"
           "[Unit]\n"
           "Description=contest: the next turn of a run across reboots\n"
           // After the boot, whichever of the two is its default target.
           "After=multi-user.target graphical.target\n"
           // The results folder (the state, contest's copy) and the workdir
           // may each be a mount of its own.
           + requires_mounts +
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
           unit_word(binary.string(), true) + kContinue + unit_word(state.string(), true) +
           "\n"
           // The journal only: a console (often serial) written during the
           // runs would be part of what they measure. --boot-status, or
           // journalctl -u contest-boot, to follow it.
           "StandardOutput=journal\n"
           "\n"
           "[Install]\n"
           "WantedBy=multi-user.target\n";
}

void install_boot_unit(const fs::path& root, const fs::path& binary, const fs::path& state,
                       const std::vector<fs::path>& mounts) {
    const fs::path unit = boot_unit_path(root);
    std::error_code ec;
    fs::create_directories(wants_link(root).parent_path(), ec);
    if (ec)
        throw EnvironmentError("cannot make " + wants_link(root).parent_path().string() + ": " +
                               ec.message());
    write_file_atomically(unit, boot_unit_text(binary, state, mounts));
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

std::optional<fs::path> boot_unit_state(const fs::path& root) {
    const RegularFileRead got =
        read_regular_file_at(AT_FDCWD, boot_unit_path(root).c_str(), 1 << 16, false);
    if (got.refusal != RegularFileRead::Refusal::none) return std::nullopt;
    for (const auto& line : split_lines(got.text)) {
        if (!line.starts_with("ExecStart=")) continue;
        const auto at = line.find(kContinue);
        if (at == std::string::npos) return std::nullopt;
        if (auto state = exec_word_text(line.substr(at + kContinue.size()))) return *state;
    }
    return std::nullopt;
}

bool remove_own_boot_unit(const fs::path& root, const fs::path& state) {
    if (boot_unit_state(root) != state) return false;
    return remove_boot_unit(root);
}

fs::path machine_boot_lock_path(const fs::path& root) {
    return root / "run" / "contest-boot.lock";
}

}  // namespace contest
