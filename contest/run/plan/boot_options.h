#pragma once
// How a --boot run boots its kernels: its own options, beside its config
// (run_config.h), which the start takes (boot_run.h) and a bisection keeps
// in its journal for the --boot part it starts for each batch. The
// options as `contest run` parses them are the place's (place_boot.cpp).
#include <filesystem>
#include <string>
#include <vector>

#include "contest/boot/boot_state.h"

namespace contest {

struct BootRunOptions {
    BootMethod method = BootMethod::kexec;
    unsigned boot_max = 0;  // 0: one a turn and one back
    bool stop_on_failure = false;
    bool keep_built = false;           // --boot-keep-built
    std::filesystem::path root = "/";  // where the unit is installed
    // The bisection whose batch the run is (BootState::owner): its folder,
    // whose journal the run's end hands over to. Not an option of contest run.
    std::filesystem::path owner;
};

}  // namespace contest
