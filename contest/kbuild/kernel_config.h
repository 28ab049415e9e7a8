#pragma once
// The one config every label of a run is built from, and how their .config
// files then differ. The config is chosen once: --build-config FILE for all
// labels; by default, for --kernel's guests, the kernel's tinyconfig, its
// kvm_guest.config and what contest's guests need (guest_config.h); for
// --boot, the running kernel's (/proc/config.gz, else
// /boot/config-$(uname -r)), which this machine boots with. Each label's
// tree then makes its own .config of it with `make olddefconfig`, so a
// patch that adds an option, or a tree whose defaults moved, shows in
// config_differences.
#include <filesystem>
#include <string>
#include <vector>

namespace contest::kbuild {

// What the built kernel is for.
enum class BuildTarget { guest, boot };

struct ConfigChoice {
    std::string source;  // where it came from, in words, for the record
    // The text laid over the starting point: the fragment, the file, the
    // running kernel's .config.
    std::string text;
    bool on_tinyconfig = false;  // the guests' default: tinyconfig + kvm_guest.config first
    // Of what decides the .config besides the tree: the starting point and
    // the text (the cache's key).
    std::string sha256() const;
};

// The config for target: config_file's (UsageError when it cannot be read)
// or the target's default (EnvironmentError when the running kernel's
// cannot be found).
ConfigChoice choose_config(const std::filesystem::path& config_file, BuildTarget target);

// One option that differs: its value in each .config, "" when unset.
struct ConfigChange {
    std::string option, base, other;
};

// The options whose values differ between two .config texts, by name.
std::vector<ConfigChange> config_differences(const std::string& base, const std::string& other);

// "CONFIG_X: y -> unset".
std::string change_text(const ConfigChange& change);

}  // namespace contest::kbuild
