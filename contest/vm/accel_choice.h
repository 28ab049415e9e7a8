#pragma once
// Which accelerator runs --kernel's guests (and `contest vm check`'s probe):
// kvm or tcg as asked, or auto: a short boot tries KVM, else TCG.
#include <filesystem>
#include <string>

#include "contest/sys/progress.h"
#include "contest/vm/guest.h"
#include "contest/vm/initramfs.h"
#include "contest/vm/kernel_image.h"

namespace contest {

// The KVM probe's time to come up: a stock kernel reaches its init in 1-2 s
// under KVM; a host where KVM does not run guests (a PVM host, nesting
// without support) hangs it, which this bounds.
inline constexpr double kKvmProbeTimeoutS = 15;

// The accelerator --vm-accel asks for, with why KVM is not used ("" when it is).
struct AccelChoice {
    Accel accel = Accel::tcg;
    std::string why_not_kvm;
};

// --vm-accel auto|kvm|tcg: kvm and tcg as asked; auto probes KVM with a
// short boot and falls back to TCG.
AccelChoice choose_accel(const std::string& request, const KernelImage& kernel,
                         const Initramfs& initramfs, const std::filesystem::path& folder,
                         Progress& progress);

}  // namespace contest
