#pragma once
// What this machine offers guests, read without booting one: whether
// /dev/kvm opens, which KVM module serves it and whether the CPU has
// hardware virtualisation. `contest vm check` says it first, and alone when
// it has no kernel to boot a probe guest with; only a probe boot
// (accel_problem, guest.h) tells for sure.
#include <filesystem>
#include <string>

namespace contest {

struct HostAccelFacts {
    std::string
        dev_kvm_error;  // why /dev/kvm does not open for reading and writing; "" when it does
    // The KVM module loaded: kvm_intel, kvm_amd or kvm_pvm (PVM, KVM in a
    // guest without hardware virtualisation); "" for none of them.
    std::string kvm_module;
    std::string cpu_virtualization;  // vmx or svm in /proc/cpuinfo's flags; "" for neither
};

// The facts under root ("/": this machine's /dev, /sys/module, /proc/cpuinfo;
// another folder for the tests).
HostAccelFacts host_accel_facts(const std::filesystem::path& root = "/");

// One line: the accelerator a guest would most likely run under here, and why.
std::string likely_accel_line(const HostAccelFacts& facts);

}  // namespace contest
