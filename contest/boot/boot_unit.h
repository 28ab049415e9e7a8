#pragma once
// The systemd unit that resumes a --boot run after every boot: started
// once the system is up (after multi-user.target), it runs the copy of
// contest the run made with --boot-continue STATE. Installed under a root
// folder ("/": the machine's; tests give a scratch one) and removed when
// the run ends or is aborted.
#include <filesystem>
#include <string>

namespace contest {

inline constexpr const char* kBootUnitName = "contest-boot.service";

std::filesystem::path boot_unit_path(const std::filesystem::path& root);
std::string boot_unit_text(const std::filesystem::path& binary, const std::filesystem::path& state);

// Writes the unit and its multi-user.target.wants link under root (as
// `systemctl enable` would, without needing systemd to run);
// EnvironmentError naming the path when it cannot.
void install_boot_unit(const std::filesystem::path& root, const std::filesystem::path& binary,
                       const std::filesystem::path& state);
// Removes both; true when there was something to remove.
bool remove_boot_unit(const std::filesystem::path& root);

}  // namespace contest
