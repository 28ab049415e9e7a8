#pragma once
// What the tests that boot the host's own systemd in a TCG guest
// (InitMode::systemd_machine) share: the units masked on its command line,
// the clock of its console's lines, and its kernel and initramfs.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "contest/sys/progress.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"
#include "test_helpers.h"

namespace contest::test {

// Debian's kernel (fetched into the shared workdir's cache once) and the
// systemd machine's initramfs for it, under the shared workdir, not /tmp:
// the guest's /tmp is a tmpfs of its own, and a --boot run reads its
// labels' IMAGE:INITRD in the guest when it starts.
struct SystemdMachineImages {
    explicit SystemdMachineImages(const std::string& tag)
        : kernel(resolve_kernel_image(debian_kernel_package(), vm_test_workdir() / "vm" / "cache",
                                      quiet)),
          keep(tag, vm_test_workdir()),
          initramfs(build_initramfs(kernel, keep / "initramfs.cpio", InitMode::systemd_machine)) {}
    // IMAGE:INITRD, a kexec label's kernel as --boot takes it.
    std::string boot_kernel() const {
        return kernel.image.string() + ":" + initramfs.path.string();
    }

    Progress quiet{Progress::Mode::kQuiet};
    KernelImage kernel;
    ScratchDir keep;
    Initramfs initramfs;
};

// What the host itself enabled (its /etc/systemd/system/*.wants: its
// database, timers, agents, getty) and what waits for a terminal or the
// network in a guest that has neither: masked on the guest's command line,
// which every kexec'd kernel inherits (contest boots each label with the
// running command line).
inline std::vector<std::string> units_to_mask() {
    namespace fs = std::filesystem;
    std::set<std::string> units = {"getty.target", "serial-getty@ttyS0.service",
                                   "console-getty.service", "systemd-networkd-wait-online.service",
                                   "networking.service",
                                   // binfmt_misc is a module the host's
                                   // /lib/modules does not have for this kernel.
                                   "proc-sys-fs-binfmt_misc.automount", "systemd-binfmt.service"};
    std::error_code ec;
    for (const auto& wants : fs::directory_iterator("/etc/systemd/system", ec)) {
        if (!wants.path().filename().string().ends_with(".wants")) continue;
        for (const auto& unit : fs::directory_iterator(wants.path(), ec))
            units.insert(unit.path().filename().string());
    }
    return {units.begin(), units.end()};
}

// One console line the test times: what it says and when the host saw it.
struct ConsoleEvent {
    double at_s;
    std::string what;
};

// The console's lines that mark a boot's steps, timed as the host sees
// them (every 200 ms: run_guest's tick).
class ConsoleClock {
  public:
    // more_markers: a test's own lines (its units' names), besides the boot's.
    explicit ConsoleClock(std::filesystem::path log,
                          std::vector<std::pair<std::string, std::string>> more_markers = {})
        : log_(std::move(log)), markers_(kMarkers) {
        markers_.insert(markers_.end(), more_markers.begin(), more_markers.end());
    }

    void tick(double now) {
        std::ifstream in(log_, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(read_));
        std::ostringstream more;
        more << in.rdbuf();
        pending_ += more.str();
        read_ += more.str().size();
        for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n')) {
            const std::string line = without_colours(pending_.substr(0, nl));
            pending_.erase(0, nl + 1);
            for (const auto& [marker, name] : markers_)
                if (line.find(marker) != std::string::npos) events_.push_back({now, name});
        }
    }

    const std::vector<ConsoleEvent>& events() const { return events_; }

  private:
    // systemd's status lines colour the unit's name (ESC [ ... m).
    static std::string without_colours(const std::string& line) {
        std::string out;
        for (std::size_t i = 0; i < line.size(); ++i) {
            if (line[i] == '\x1b') {
                const auto m = line.find('m', i);
                if (m == std::string::npos) break;
                i = m;
                continue;
            }
            out += line[i];
        }
        return out;
    }

    static inline const std::vector<std::pair<std::string, std::string>> kMarkers = {
        {"Linux version ", "kernel"},
        {"contest-guest: up", "init"},
        {"Welcome to ", "systemd"},
        {"Reached target multi-user.target", "multi-user"},
        // systemd's status lines cut a long unit name short.
        {"Starting contest-boot", "unit start"},
        {": booting ", "contest asks for the next kernel"},
        {"rebooting into the machine's own kernel", "contest asks for the way back"},
        {"Stopped contest-", "unit stopped"},
        {"Finished contest-boot", "unit finished"},
        {"Starting systemd-kexec", "services stopped, systemd-kexec.service"},
        {"Reached target reboot.target", "services stopped, reboot.target"},
        {"systemd-shutdown[1]: Syncing", "systemd-shutdown"},
        {"kexec_core: Starting new kernel", "kexec"},
        {"Kernel panic - not syncing", "panic"},
        {"reboot: Restarting system", "reset"},
        {"reboot: Power down", "power off"},
        {"contest-guest: done", "done"},
    };
    std::filesystem::path log_;
    std::vector<std::pair<std::string, std::string>> markers_;
    std::size_t read_ = 0;
    std::string pending_;
    std::vector<ConsoleEvent> events_;
};

}  // namespace contest::test
