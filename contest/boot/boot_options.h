#pragma once
// How a --boot run boots its kernels: its own options, beside its config
// (run/plan/run_config.h), which the start takes (run/places/boot/boot_run.h)
// and a bisection keeps in its journal for the --boot part it starts for
// each batch. The options as `contest run` parses them are the place's
// (run/places/boot/place_boot.cpp).
//
// In the journal they are the boot layer's section `boot` (sys/journal_file.h),
// beside its boot_run section (boot_state.h): null in the journal of any
// other run. A journal of an earlier contest held the same field in the
// run's section, so every journal reads as it did.
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "contest/boot/boot_state.h"
#include "contest/sys/journal_file.h"

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

// The journal's `boot` section: the boot options when the journal is a
// bisection's across reboots (unset: null, or, read, absent), each field
// checked by the record codec (boot_options.cpp); a UsageError naming the
// journal and the field otherwise.
extern const JournalSection<std::optional<BootRunOptions>> kBootOptionsSection;

}  // namespace contest
