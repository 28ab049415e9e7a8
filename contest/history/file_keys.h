#pragma once
// What a result file ran on, as the history keeps it apart: the machine,
// the workload and the kernel, each with the SHA-256 of its identity (a row
// of its table is kept once by it) and a short name for the tables. A
// series is one machine, workload, load and measure over kernels.
#include <string>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"

namespace contest::history {

struct Keyed {
    std::string identity_sha256;
    std::string name;
    nlohmann::json facts;  // what the identity was made of
};

// The hardware: the host's hostname, CPU model and count, memory (whole
// GiB: the kernel's own reservation moves the exact figure), architecture;
// under --kernel the host's fingerprint (config.vm.host_system) and the
// guests' shape and accelerator. Nothing of the kernel.
Keyed machine_of(const ResultFile& file);

// The work timed: config.workload's kind, size or project, jobs and
// command, and the values of the knobs a run varied other than the kernel
// (thp=never is another series, not another kernel).
Keyed workload_of(const ResultFile& file);

struct KernelKey {
    std::string identity_sha256;
    std::string release;  // "6.1.0-13-amd64"
    // A build's, when contest built it from a tree; the ref is a name of
    // the commit, not part of the kernel's identity.
    std::string tree, ref, commit;
    std::string config_sha256;  // its .config's
    std::string build;          // the build's key, else its version string (#1 SMP ...)
};

// The kernel the runs ran under: --kernel's or --boot's record in config
// (with a build's tree, ref and commit), else the fingerprint's.
KernelKey kernel_of(const ResultFile& file);

}  // namespace contest::history
