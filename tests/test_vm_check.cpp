// `contest vm check` before any guest boots: what the machine offers guests
// (contest/vm/host_accel.h), read from planted /dev, /sys/module and
// /proc/cpuinfo, and said first by the command, even when it has no kernel
// image to boot a probe guest with.
#include <sys/utsname.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "contest/vm/host_accel.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// A machine's root with /dev/kvm (when kvm), a loaded module and the CPU's flags.
void plant_machine(const fs::path& root, bool kvm, const std::string& module,
                   const std::string& flags) {
    fs::create_directories(root / "dev");
    fs::create_directories(root / "proc");
    if (kvm) test::put_file(root / "dev/kvm", "");
    if (!module.empty()) fs::create_directories(root / "sys/module" / module);
    test::put_file(root / "proc/cpuinfo",
                   "processor\t: 0\nflags\t\t: fpu " + flags + " sse2\n\nprocessor\t: 1\n");
}

}  // namespace

TEST_CASE("vm check's facts: /dev/kvm, its module and the CPU's flags name the likely accelerator",
          "[vm-check]") {
    test::ScratchDir dir("vm-check-facts");
    plant_machine(dir / "pvm", true, "kvm_pvm", "hypervisor");
    plant_machine(dir / "intel", true, "kvm_intel", "vmx hypervisor");
    plant_machine(dir / "amd", true, "kvm_amd", "svm");
    plant_machine(dir / "none", false, "", "vmx");
    plant_machine(dir / "unknown", true, "", "lm");

    const HostAccelFacts pvm = host_accel_facts(dir / "pvm");
    CHECK(pvm.dev_kvm_error.empty());
    CHECK(pvm.kvm_module == "kvm_pvm");
    CHECK(pvm.cpu_virtualization.empty());
    CHECK_THAT(likely_accel_line(pvm),
               Catch::StartsWith("guests here would most likely run under TCG") &&
                   Catch::Contains("/dev/kvm is PVM's (kvm_pvm") &&
                   Catch::Contains("no vmx or svm"));

    const HostAccelFacts intel = host_accel_facts(dir / "intel");
    CHECK(intel.kvm_module == "kvm_intel");
    CHECK(intel.cpu_virtualization == "vmx");
    CHECK(likely_accel_line(intel) ==
          "guests here would most likely run under KVM: /dev/kvm opens, served by kvm_intel, "
          "and the CPU has vmx; a probe boot decides");
    CHECK(host_accel_facts(dir / "amd").cpu_virtualization == "svm");

    const HostAccelFacts none = host_accel_facts(dir / "none");
    CHECK(none.dev_kvm_error == "No such file or directory");
    CHECK_THAT(likely_accel_line(none),
               Catch::StartsWith("guests here would run under TCG") &&
                   Catch::Contains("/dev/kvm does not open (No such file or directory)"));

    CHECK_THAT(likely_accel_line(host_accel_facts(dir / "unknown")),
               Catch::StartsWith("guests here would run under KVM if a probe boot comes up, else "
                                 "TCG") &&
                   Catch::Contains("served by no module contest knows"));
}

TEST_CASE("contest vm check with no kernel image to boot says first what it read of the machine",
          "[vm-check][e2e]") {
    struct utsname u {};
    ::uname(&u);
    const fs::path image = std::string("/boot/vmlinuz-") + u.release;
    if (fs::exists(image)) CONTEST_SKIP(image.string() + " is here: the check would boot it");
    test::ScratchDir dir("vm-check-no-image");
    const auto o =
        test::run_contest_binary({"vm", "check", "--workdir", (dir / "work").string()}, dir.path());
    INFO(o.out << o.err);
    CHECK(o.exit_code == 2);
    // The machine's own facts, as the library reads them, on stdout first.
    CHECK(o.out == likely_accel_line(host_accel_facts()) + "\n");
    CHECK(o.err == "contest: no probe guest booted: no " + image.string() +
                       " (the running kernel's image) to boot; give --kernel IMAGE (a kernel "
                       "image or a linux-image package's name) to boot-test KVM and TCG\n");
    CHECK_FALSE(fs::exists(dir / "work"));  // nothing made for a check that booted nothing
}
