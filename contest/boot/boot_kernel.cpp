#include "contest/boot/boot_kernel.h"

#include <fcntl.h>
#include <linux/reboot.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "contest/boot/boot_entry.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/text_file.h"
#include "contest/sys/unique_fd.h"
#include "contest/sys/words.h"
#include "contest/vm/kernel_image.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// <linux/kexec.h>'s flags of kexec_file_load(2).
constexpr unsigned long kKexecFileUnload = 0x1;
constexpr unsigned long kKexecFileNoInitramfs = 0x4;

std::string proc_text(const char* path) {
    return trim_blanks(read_text_file(path).value_or(""));
}

// kexec_file_load(2) of the label's kernel; the errno when refused (0: loaded).
int kexec_file_load_label(const BootLabel& label) {
    UniqueFd kernel(::open(label.image.c_str(), O_RDONLY | O_CLOEXEC));
    if (kernel.get() < 0) return errno;
    UniqueFd initrd;
    unsigned long flags = 0;
    if (label.initrd.empty()) {
        flags |= kKexecFileNoInitramfs;
    } else {
        initrd = UniqueFd(::open(label.initrd.c_str(), O_RDONLY | O_CLOEXEC));
        if (initrd.get() < 0) return errno;
    }
    // The length counts the terminating NUL.
    if (::syscall(SYS_kexec_file_load, kernel.get(), initrd.get(), label.cmdline.size() + 1,
                  label.cmdline.c_str(), flags) != 0)
        return errno;
    return 0;
}

// kexec-tools, for a kernel that refuses the syscall (an older one, or an
// image it does not take): -s is kexec_file_load through kexec-tools, -l
// the older kexec_load(2).
std::string kexec_tools_load(const BootLabel& label) {
    if (!find_on_path("kexec"))
        return "kexec-tools is not installed (the Debian package kexec-tools)";
    std::string why;
    for (const char* how : {"-s", "-l"}) {
        std::vector<std::string> argv = {"kexec", how, label.image,
                                         "--command-line=" + label.cmdline};
        if (!label.initrd.empty()) argv.push_back("--initrd=" + label.initrd);
        try {
            run_checked(argv, {}, "kexec " + std::string(how));
            return "";
        } catch (const Interrupted&) {
            throw;
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    return why;
}

// A test's made-up machine (kTestRunningKernelVariable): its kexec and its
// reboots are the tools on PATH (stand-ins), never a system call, which
// would load a kernel into the real machine or reboot it.
// Its folder of /proc's stand-ins; empty on a real machine.
fs::path stand_in_proc() {
    const char* v = std::getenv(kTestRunningKernelVariable);
    return v && *v ? fs::path(v) : fs::path();
}
bool stand_in_machine() {
    return !stand_in_proc().empty();
}

// The label's kernel loaded for the next kexec, or why not.
std::string kexec_load(const BootLabel& label) {
    std::error_code ec;
    for (const std::string& file : {label.image, label.initrd})
        if (!file.empty() && !fs::is_regular_file(file, ec))
            return printable(file) + ": no such file";
    if (stand_in_machine()) return kexec_tools_load(label);
    const int err = kexec_file_load_label(label);
    if (err == 0) return "";
    const std::string syscall_why = std::string("kexec_file_load: ") + std::strerror(err);
    if (err == ENOENT || err == EACCES) return syscall_why;
    const std::string tools_why = kexec_tools_load(label);
    if (tools_why.empty()) return "";
    return syscall_why + "; " + tools_why;
}

// Whether systemd runs this machine: then it stops the services and
// unmounts the file systems before the kernel goes (systemctl kexec, reboot).
bool under_systemd() {
    std::error_code ec;
    return fs::is_directory("/run/systemd/system", ec);
}

std::string run_step(const std::vector<std::string>& argv) {
    try {
        run_checked(argv, {}, argv.front());
        return "";
    } catch (const Interrupted&) {
        // The machine going down (systemd stopping the unit), or
        // --boot-abort: not a step that failed.
        throw;
    } catch (const std::exception& e) {
        return e.what();
    }
}

// The reboot asked: an interrupt now is the machine going down (systemd
// stopping the unit or the session that started contest) or --boot-abort,
// which disarms what is armed itself; either way the reboot stands asked.
std::string ask_reboot(const std::vector<std::string>& argv) {
    try {
        return run_step(argv);
    } catch (const Interrupted&) {
        return "";
    }
}

// The label's kernel armed for the next reboot: loaded for kexec, or the
// one-shot entry set; why not ("" when armed).
std::string arm_label(BootMethod method, const BootLabel& label) {
    switch (method) {
        case BootMethod::kexec:
            return kexec_load(label);
        case BootMethod::grub:
            return run_step({"grub-reboot", label.kernel});
        case BootMethod::systemd_boot:
            return run_step({"bootctl", "set-oneshot", label.kernel});
    }
    return "";
}

// The entry's kernel recorded in the label (kexec's fields: the booted
// kernel is checked against them the same way), or why there is none.
std::string resolve_entry_kernel(const EntryLookup& found, BootLabel& label) {
    if (!found.kernel) return found.why;
    label.image = found.kernel->image;
    label.release = found.kernel->release;
    label.cmdline = found.kernel->cmdline;
    return "";
}

std::string first_word(const std::string& s) {
    return s.substr(0, s.find(' '));
}

}  // namespace

RunningKernel running_kernel() {
    RunningKernel k;
    const fs::path proc = stand_in_proc();
    auto read = [&](const char* name, const char* real) {
        return proc_text(proc.empty() ? real : (proc / name).c_str());
    };
    k.stand_in = !proc.empty();
    k.release = read("osrelease", "/proc/sys/kernel/osrelease");
    k.cmdline = read("cmdline", "/proc/cmdline");
    k.boot_id = read("boot_id", "/proc/sys/kernel/random/boot_id");
    const std::string uptime = read("uptime", "/proc/uptime");
    k.up_s = std::strtod(uptime.c_str(), nullptr);
    return k;
}

std::string not_the_labels_kernel(BootMethod method, const BootLabel& label,
                                  const RunningKernel& k) {
    const std::string wanted =
        label.release + (label.cmdline.empty() ? "" : " (" + label.cmdline + ")");
    const std::string booted = "booted " + k.release + " (" + k.cmdline + "), not " + label.label +
                               "'s " + (label.release.empty() ? label.kernel : wanted);
    if (k.release != label.release) return booted;
    if (method == BootMethod::kexec) return k.cmdline == label.cmdline ? "" : booted;
    // An entry's line as the loader passes it: with BOOT_IMAGE= (grub) or
    // initrd= (systemd-boot) words of its own, and its blanks collapsed.
    if (label.cmdline.empty() || base_cmdline(k.cmdline) == base_cmdline(label.cmdline)) return "";
    return booted;
}

std::string base_cmdline(const std::string& proc_cmdline) {
    std::vector<std::string> kept;
    for (const auto& word : split_words(proc_cmdline))
        if (!word.starts_with("BOOT_IMAGE=") && !word.starts_with("initrd=")) kept.push_back(word);
    return join(kept, " ");
}

std::string label_cmdline(const std::string& base, const std::string& append) {
    std::string line = trim_blanks(base + " " + append);
    bool has_panic = false;
    for (const auto& word : split_words(line))
        if (word.starts_with("panic=")) has_panic = true;
    if (!has_panic) line += (line.empty() ? "" : " ") + std::string("panic=10");
    return line;
}

std::string boot_check(BootMethod method, BootLabel& label, const std::string& root) {
    switch (method) {
        case BootMethod::kexec: {
            // Unloaded only when loaded: a kernel someone else loaded for
            // kexec stays as it was when this one is refused.
            std::string why = kexec_load(label);
            if (why.empty()) kexec_unload();
            return why;
        }
        case BootMethod::grub:
            if (!find_on_path("grub-reboot")) return "grub-reboot is not installed";
            return resolve_entry_kernel(grub_entry_kernel(root, label.kernel), label);
        case BootMethod::systemd_boot:
            if (!find_on_path("bootctl")) return "bootctl is not installed";
            return resolve_entry_kernel(loader_entry_kernel(root, label.kernel), label);
    }
    return "";
}

std::string boot_label(BootMethod method, const BootLabel& label) {
    if (auto why = arm_label(method, label); !why.empty()) return why;
    // An interrupt (Ctrl-C at the start, --boot-abort's SIGTERM) while the
    // kernel was armed: no reboot, and the caller disarms it.
    throw_if_interrupted();
    if (method != BootMethod::kexec) return ask_reboot({"reboot"});
    // --no-block: the job queued, the step (and so its unit) ends cleanly
    // rather than being stopped by the shutdown it asked for.
    if (under_systemd()) return ask_reboot({"systemctl", "--no-block", "kexec"});
    if (stand_in_machine()) return ask_reboot({"kexec", "-e"});
    ::sync();
    if (::reboot(LINUX_REBOOT_CMD_KEXEC) != 0)
        return std::string("reboot(KEXEC): ") + std::strerror(errno);
    return "";
}

std::string clear_one_shot(BootMethod method) {
    switch (method) {
        case BootMethod::kexec:
            return "";
        case BootMethod::grub:
            // grub-reboot's own variable, in the grubenv it wrote (the default one).
            return run_step({"grub-editenv", "-", "unset", "next_entry"});
        case BootMethod::systemd_boot:
            return run_step({"bootctl", "set-oneshot", ""});
    }
    return "";
}

void kexec_unload() {
    if (stand_in_machine()) {
        run_step({"kexec", "-u"});
        return;
    }
    ::syscall(SYS_kexec_file_load, -1, -1, 0UL, nullptr, kKexecFileUnload);
}

std::string reboot_default(BootMethod method) {
    // Through the firmware: a kernel left loaded would be kexec'd instead
    // by a systemd whose reboot kexecs one.
    if (method == BootMethod::kexec) kexec_unload();
    if (under_systemd()) return ask_reboot({"systemctl", "--no-block", "reboot"});
    if (method != BootMethod::kexec || stand_in_machine()) return ask_reboot({"reboot"});
    ::sync();
    if (::reboot(RB_AUTOBOOT) != 0) return std::string("reboot: ") + std::strerror(errno);
    return "";
}

void resolve_kexec_kernel(BootLabel& label) {
    std::error_code ec;
    const std::string& k = label.kernel;
    // IMAGE:INITRD split where IMAGE is a file: a path may hold ':' itself
    // (a workdir's, where contest puts the kernels it builds).
    auto colon = std::string::npos;
    if (!fs::is_regular_file(k, ec))
        for (auto at = k.find(':'); at != std::string::npos; at = k.find(':', at + 1))
            if (colon == std::string::npos || fs::is_regular_file(k.substr(0, at), ec)) {
                colon = at;
                if (fs::is_regular_file(k.substr(0, at), ec)) break;
            }
    if (colon != std::string::npos) {
        label.image = k.substr(0, colon);
        label.initrd = k.substr(colon + 1);
    } else if (k.find('/') != std::string::npos) {
        label.image = k;
    } else {
        label.image = "/boot/vmlinuz-" + k;
    }
    if (!fs::is_regular_file(label.image, ec))
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": no kernel image " +
                         printable(label.image));
    label.image = fs::absolute(label.image).string();
    label.release = first_word(bzimage_version(label.image));
    if (label.release.empty())
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": " +
                         printable(label.image) + " is no bzImage (no version in its header)");
    if (auto why = bzimage_truncated(label.image))
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": " + *why);
    if (colon == std::string::npos) {
        const std::string initrd = "/boot/initrd.img-" + label.release;
        if (fs::is_regular_file(initrd, ec)) label.initrd = initrd;
    } else if (!fs::is_regular_file(label.initrd, ec)) {
        throw UsageError("--boot " + label.label + "=" + printable(k) + ": no initrd " +
                         printable(label.initrd));
    } else {
        label.initrd = fs::absolute(label.initrd).string();
    }
}

std::string previous_boot_tail() {
    if (find_on_path("journalctl")) {
        const std::string out = command_output(
            {"journalctl", "-b", "-1", "-k", "-n", "8", "--no-pager", "-o", "cat", "-q"});
        if (!out.empty())
            return "the previous boot's kernel log ends: " + join(split_lines(out), " | ");
    }
    std::error_code ec;
    std::vector<std::string> kept;
    for (const auto& e : fs::directory_iterator("/sys/fs/pstore", ec))
        kept.push_back(e.path().filename().string());
    if (!kept.empty()) return "pstore kept " + join(kept, ", ") + " (/sys/fs/pstore)";
    return "no journal of the previous boot, nothing in pstore";
}

void disarm_next_boot(const BootState& state) {
    if (state.method == BootMethod::kexec) kexec_unload();
    if (auto why = clear_one_shot(state.method); !why.empty())
        say("the one-shot boot entry may still be set: " + why);
}

bool in_start_kernel(const BootState& state, const RunningKernel& k) {
    return k.release == state.start_release && k.cmdline == state.start_cmdline;
}

}  // namespace contest
