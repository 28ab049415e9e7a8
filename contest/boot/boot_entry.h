#pragma once
// The kernel a grub or systemd-boot entry boots, read from the loader's own
// files under a root: grub.cfg's menu (its menuentry and submenu blocks,
// their titles and ids, and each entry's linux line) and systemd-boot's
// loader/entries/*.conf (linux, options, version). A --boot run records it
// in the label when it starts and checks after each boot that the kernel up
// is the entry's, its release and command line, as kexec's labels are.
#include <optional>
#include <string>
#include <vector>

namespace contest {

// The kernel an entry boots.
struct EntryKernel {
    std::string image;    // the image's path as the loader has it
    std::string release;  // from the image's header, else its name (vmlinuz-RELEASE)
    std::string cmdline;  // its command line; "" when it holds a grub variable ($...)
};

// The entry's kernel, or why there is none that contest can check.
struct EntryLookup {
    std::optional<EntryKernel> kernel;
    std::string why;
};

// One menuentry of grub.cfg: where it is in the menu (one step a submenu
// deep, the entry's last), and its linux line.
struct GrubMenuStep {
    std::string title, id;
    std::size_t index = 0;  // among the entries and submenus beside it, from 0
};
struct GrubMenuEntry {
    std::vector<GrubMenuStep> path;
    std::string linux_image;  // "" when it has no linux line
    std::vector<std::string> linux_args;
    bool args_expand = false;  // some hold a variable grub expands at boot
};
// grub.cfg's entries, in the menu's order (a submenu's own inside it).
std::vector<GrubMenuEntry> grub_menu(const std::string& cfg);

// Whether `name` (as grub-reboot takes it: a title, an id or an index,
// "submenu>entry" for one inside a submenu) names the entry.
bool grub_entry_named(const GrubMenuEntry& entry, const std::string& name);

// The kernel of grub entry `name` in root/boot/grub/grub.cfg.
EntryLookup grub_entry_kernel(const std::string& root, const std::string& name);

// The kernel of systemd-boot entry `name` (loader/entries/NAME[.conf] on
// root's /boot, /efi or /boot/efi).
EntryLookup loader_entry_kernel(const std::string& root, const std::string& name);

}  // namespace contest
