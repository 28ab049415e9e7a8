#pragma once
// What a kernel contest builds for its guests (`--kernel LABEL=TREE@REF`
// without --build-config) must have, written down once: the kernel's own
// tinyconfig, its kvm_guest.config, then this table, each option with who
// needs it. Read beside contest/vm/initramfs.cpp (the guest's /init) and
// contest/vm/guest.cpp (QEMU's machine): a change there that needs more of
// the kernel adds its line here.
#include <map>
#include <string>
#include <vector>

namespace contest::kbuild {

struct ConfigNeed {
    const char* option;  // CONFIG_...
    const char* value;   // y, or a number
    const char* who;     // who needs it, and what for
};

// The table, in the order the fragment lists it.
const std::vector<ConfigNeed>& guest_config_needs();

// The table as a .config fragment, each line under a comment saying who
// needs it.
std::string guest_config_fragment();

// The needs a built .config does not have as asked (a dependency the tree
// lacks turned one off), as "CONFIG_X=y (who)".
std::vector<std::string> unmet_guest_needs(const std::map<std::string, std::string>& config);

}  // namespace contest::kbuild
