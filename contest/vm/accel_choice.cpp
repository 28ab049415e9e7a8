#include "contest/vm/accel_choice.h"

#include "contest/sys/enum_names.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace fs = std::filesystem;

AccelChoice choose_accel(const std::string& request, const KernelImage& kernel,
                         const Initramfs& initramfs, const fs::path& folder, Progress& progress) {
    if (auto named = value_in(kAccelNames, request))
        return {*named, *named == Accel::tcg ? "--vm-accel tcg" : ""};
    progress.status("contest: probing KVM with a short boot of " + kernel.release);
    double up_s = 0;
    auto why = accel_problem(Accel::kvm, kernel.image, initramfs.path, folder / "probe-kvm.log",
                             kKvmProbeTimeoutS, &up_s);
    progress.clear();
    if (!why) {
        progress.note("contest: KVM runs guests here (probe up in " + seconds_text(up_s) + ")");
        return {Accel::kvm, ""};
    }
    progress.note("contest: KVM does not run guests here (" + *why +
                  "): using TCG, software emulation; the times will be EMULATED");
    return {Accel::tcg, *why};
}

}  // namespace contest
