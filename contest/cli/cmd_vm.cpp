// `contest vm check`
#include <sys/utsname.h>

#include <cstdio>
#include <iostream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/sys/errors.h"
#include "contest/sys/workdir.h"
#include "contest/vm/accel_choice.h"
#include "contest/vm/guest.h"
#include "contest/vm/host_accel.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"

namespace contest {
namespace {

// The running kernel's own image, where Debian keeps it. Without one the
// check has said what it read of the machine, and booted nothing.
std::string host_kernel_image() {
    struct utsname u {};
    ::uname(&u);
    const std::string image = std::string("/boot/vmlinuz-") + u.release;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(image, ec))
        throw UsageError("no probe guest booted: no " + image +
                         " (the running kernel's image) to boot; give --kernel IMAGE (a kernel "
                         "image or a linux-image package's name) to boot-test KVM and TCG");
    return image;
}

}  // namespace

int cmd_vm(int argc, char** argv) {
    CommandLine cl;
    cl.name = "vm";
    cl.usage = "contest vm check [--kernel IMAGE] [--workdir D] [--vm-boot-timeout S]";
    cl.summary =
        "check: says what the machine offers guests (whether /dev/kvm opens, its KVM module:\n"
        "kvm_intel, kvm_amd or PVM's kvm_pvm, the CPU's vmx or svm) and the accelerator that\n"
        "most likely runs them here; then boots a kernel in a short probe guest under KVM and\n"
        "under TCG (software emulation) and says which accelerator `contest run --kernel` can\n"
        "use here, and why not the other.";
    std::string image, workdir;
    double boot_timeout_s = 120;
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"kernel", host, po::value(&image)->value_name("IMAGE"),
         "the kernel to probe with: as --kernel's IMAGE of contest run (default: /boot/vmlinuz-$(uname -r))"},
        {"workdir", host, po::value(&workdir)->value_name("D"), "where the probe's files go (default $XDG_CACHE_HOME/contest)"},
        {"vm-boot-timeout", host, bounded(&boot_timeout_s, 1.0, 86400.0)->default_value(boot_timeout_s)->value_name("S"),
         "the TCG probe's time to come up"},
    });
    // clang-format on
    // The action comes first: `contest vm check [options]`.
    const bool check = argc > 1 && std::string(argv[1]) == "check";
    if (argc > 1 && !check && argv[1][0] != '-')
        throw UsageError("contest vm: unknown action '" + printable(argv[1]) +
                         "' (expected check)");
    po::variables_map vm;
    if (!parse_command_line(cl, check ? argc - 1 : argc, check ? argv + 1 : argv, vm))
        return kExitOk;
    if (!check) throw UsageError("contest vm: expected an action: check");
    // What the machine offers, read first: said even when no guest can be
    // booted to tell for sure.
    std::cout << likely_accel_line(host_accel_facts()) << std::endl;
    if (image.empty()) image = host_kernel_image();
    const Workdir dir =
        Workdir::open(workdir.empty() ? default_workdir() : std::filesystem::path(workdir));
    dir.make_dir("vm/cache");
    const std::filesystem::path folder = dir.real_dir("vm");
    Progress progress = Progress::for_stderr(false);
    const KernelImage kernel = resolve_kernel_image(image, folder / "cache", progress);
    const Initramfs initramfs = build_initramfs(kernel, folder / "initramfs-check.cpio");
    qemu_binary();

    bool any = false;
    std::optional<Accel> chosen;
    for (Accel accel : {Accel::kvm, Accel::tcg}) {
        const double timeout = accel == Accel::kvm ? kKvmProbeTimeoutS : boot_timeout_s;
        progress.status(std::string("contest: probing ") + accel_name(accel) + " with " +
                        kernel.release);
        double up_s = 0;
        const auto why = accel_problem(
            accel, kernel.image, initramfs.path,
            folder / (std::string("probe-") + accel_name(accel) + ".log"), timeout, &up_s);
        progress.clear();
        char line[200];
        if (why) {
            std::cout << accel_name(accel) << ": no: " << *why << "\n";
            continue;
        }
        std::snprintf(line, sizeof line, "%s: yes: a guest of %s reached its init in %.1f s%s\n",
                      accel_name(accel), kernel.release.c_str(), up_s,
                      accel == Accel::tcg
                          ? " (software emulation: times measured under it are EMULATED)"
                          : "");
        std::cout << line;
        any = true;
        if (!chosen) chosen = accel;
    }
    if (!any) throw EnvironmentError("no accelerator runs a guest here (see the lines above)");
    std::cout << "contest run --kernel --vm-accel auto would use: " << accel_name(*chosen) << "\n";
    return kExitOk;
}

}  // namespace contest
