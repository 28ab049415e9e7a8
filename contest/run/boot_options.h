#pragma once
// How a --boot run boots its kernels: its own options, beside its config
// (run_config.h), which the start takes (boot_run.h) and a bisection keeps
// in its journal for the --boot part it starts for each batch.
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

// --boot's options as `contest run` parses them (its rows, place_boot.cpp):
// the kernels and their parameters for the config, the rest for the start
// (options()) or for what the CLI does instead of a run (--boot-status,
// --boot-abort, --boot-continue).
struct BootArguments {
    std::vector<std::string> kernels;  // --boot LABEL=KERNEL
    std::vector<std::string> appends;  // --boot-append LABEL=ARGS
    std::string method = "kexec", on_failure = "continue", continue_journal, root = "/";
    unsigned max = 0;
    bool status = false, abort = false, keep_built = false;

    // The start's options, of the words checked as they were parsed.
    BootRunOptions options() const {
        BootRunOptions o;
        o.method = parse_boot_method(method);
        o.boot_max = max;
        o.stop_on_failure = on_failure == "stop";
        o.keep_built = keep_built;
        o.root = root;
        return o;
    }
};

}  // namespace contest
