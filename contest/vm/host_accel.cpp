#include "contest/vm/host_accel.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "contest/sys/unique_fd.h"

namespace contest {

namespace fs = std::filesystem;

HostAccelFacts host_accel_facts(const fs::path& root) {
    HostAccelFacts facts;
    const fs::path dev_kvm = root / "dev/kvm";
    UniqueFd kvm(::open(dev_kvm.c_str(), O_RDWR | O_CLOEXEC));
    if (kvm.get() < 0) facts.dev_kvm_error = std::strerror(errno);
    std::error_code ec;
    // kvm_pvm first: a PVM host may load a hardware module beside it.
    for (const char* module : {"kvm_pvm", "kvm_intel", "kvm_amd"})
        if (fs::exists(root / "sys/module" / module, ec)) {
            facts.kvm_module = module;
            break;
        }
    std::ifstream cpuinfo(root / "proc/cpuinfo");
    for (std::string line; facts.cpu_virtualization.empty() && std::getline(cpuinfo, line);) {
        if (!line.starts_with("flags")) continue;
        std::istringstream words(line.substr(line.find(':') + 1));
        for (std::string flag; words >> flag;)
            if (flag == "vmx" || flag == "svm") facts.cpu_virtualization = flag;
    }
    return facts;
}

std::string likely_accel_line(const HostAccelFacts& f) {
    const std::string cpu = f.cpu_virtualization.empty()
                                ? "the CPU has no hardware virtualisation (no vmx or svm)"
                                : "the CPU has " + f.cpu_virtualization;
    const std::string tcg = "TCG, software emulation (times measured under it are EMULATED)";
    if (!f.dev_kvm_error.empty())
        return "guests here would run under " + tcg + ": /dev/kvm does not open (" +
               f.dev_kvm_error + "); " + cpu;
    if (f.kvm_module == "kvm_pvm")
        return "guests here would most likely run under " + tcg +
               ": /dev/kvm is PVM's (kvm_pvm: KVM without hardware virtualisation), where a stock "
               "kernel hangs at boot; " +
               cpu + "; a probe boot under KVM decides";
    if (!f.kvm_module.empty() && !f.cpu_virtualization.empty())
        return "guests here would most likely run under KVM: /dev/kvm opens, served by " +
               f.kvm_module + ", and " + cpu + "; a probe boot decides";
    return "guests here would run under KVM if a probe boot comes up, else " + tcg +
           ": /dev/kvm opens, served by " +
           (f.kvm_module.empty() ? "no module contest knows" : f.kvm_module) + ", and " + cpu;
}

}  // namespace contest
