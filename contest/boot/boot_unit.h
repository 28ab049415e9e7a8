#pragma once
// The systemd unit that resumes a --boot run after every boot: started
// once the system is up (after multi-user.target), it runs the copy of
// contest the run made with --boot-continue JOURNAL (the run's journal,
// which holds its state). Installed under a root
// folder ("/": the machine's; tests give a scratch one) and removed when
// the run ends or is aborted.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace contest {

inline constexpr const char* kBootUnitName = "contest-boot.service";

std::filesystem::path boot_unit_path(const std::filesystem::path& root);
// The unit's text: it waits for the mounts of the state's folder and of
// each of `mounts` (the run's workdir), and runs binary.
std::string boot_unit_text(const std::filesystem::path& binary, const std::filesystem::path& state,
                           const std::vector<std::filesystem::path>& mounts = {});

// Why path cannot be named in the unit ("" when it can): a control
// character (a newline would end the unit's line) has no quoting there.
std::string unit_path_problem(const std::filesystem::path& path);

// Writes the unit and its multi-user.target.wants link under root (as
// `systemctl enable` would, without needing systemd to run);
// EnvironmentError naming the path when it cannot.
void install_boot_unit(const std::filesystem::path& root, const std::filesystem::path& binary,
                       const std::filesystem::path& state,
                       const std::vector<std::filesystem::path>& mounts = {});
// Removes both; true when there was something to remove.
bool remove_boot_unit(const std::filesystem::path& root);

// The state the unit installed under root names (its --boot-continue
// STATE), nullopt when there is no unit, or none of contest's making.
// A machine has one unit, so one --boot run at a time: this is the live
// one's.
std::optional<std::filesystem::path> boot_unit_state(const std::filesystem::path& root);
// Removes the unit when it is the run's whose state is `state` (another
// run's is left alone); true when it was removed.
bool remove_own_boot_unit(const std::filesystem::path& root, const std::filesystem::path& state);

// The lock a --boot start holds, machine-wide (under root's /run, which
// only root can write), while it looks at and installs the unit: two starts
// at once make one run.
std::filesystem::path machine_boot_lock_path(const std::filesystem::path& root);

}  // namespace contest
