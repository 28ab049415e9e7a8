#pragma once
// One kernel built out of tree: make in contest's checkout (source) with
// O=build, -j from the CPUs, the build's time, user and host fixed
// (KBUILD_BUILD_TIMESTAMP from the commit's date, so that a rebuild and
// ccache see the same inputs), ccache as the compiler when installed. The
// stages: the config (tinyconfig and kvm_guest.config first, for the
// guests' default; the config laid over; the label's own options merged
// as merge_config.sh merges a fragment; olddefconfig; each of those
// options checked in the .config it made), the image (and the
// modules when the config has them), the modules staged. Each stage is a
// progress line with its time; make's output goes to the log; a stage that
// fails is StepFailed, one line with the log's last lines.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/label_options.h"
#include "contest/sys/progress.h"

namespace contest::kbuild {

struct MakeSettings {
    std::filesystem::path source, build, log;
    unsigned jobs = 1;
    std::string cc = "gcc";    // "ccache gcc" with ccache
    std::string commit_date;   // KBUILD_BUILD_TIMESTAMP
    std::string localversion;  // LOCALVERSION (set, maybe empty: no "+" for a tree off a tag)
    std::string head;          // progress: "[LABEL] "
    std::string what;          // messages: "--kernel LABEL=SPEC"
};

// What a build made, in settings.build.
struct BuiltTree {
    std::string dot_config;  // the .config olddefconfig made
    bool modules = false;    // CONFIG_MODULES=y: modules built and staged
    double seconds = 0;      // the whole build's
    // The label's options that replaced another value of the config's:
    // its value there ("" unset) against the option's.
    std::vector<ConfigChange> overridden;
};

// The make command line of `targets` (for the log and the tests).
std::vector<std::string> make_argv(const MakeSettings& settings,
                                   const std::vector<std::string>& targets);
// The environment make runs with: the fixed KBUILD_BUILD_* values.
std::vector<std::string> make_environment(const MakeSettings& settings);

// Configures and builds; the modules, when there are any, staged by
// modules_install into `staging` (INSTALL_MOD_PATH). StepFailed, before
// the image is built, when olddefconfig did not keep one of `options`
// (a dependency not met, no such option in the tree): one line naming each.
BuiltTree build_tree(const MakeSettings& settings, const ConfigChoice& config,
                     const LabelOptions& options, const std::filesystem::path& staging,
                     Progress& progress);

// `gcc --version`'s first line; EnvironmentError when gcc is missing.
std::string compiler_version();

// What else of the machine decides a built image, one "what: value" a
// line: binutils (`ld --version`'s first line), pahole (`pahole
// --version`, which writes the BTF of a CONFIG_DEBUG_INFO_BTF kernel) and
// the KCFLAGS and KCPPFLAGS make takes from the environment; "none" for a
// tool that is not installed, "" for a variable not set.
std::string toolchain_text();

}  // namespace contest::kbuild
