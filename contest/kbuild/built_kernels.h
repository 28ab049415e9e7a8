#pragma once
// The kernels of a run given as git refs (`--kernel LABEL=TREE@REF`,
// `--boot LABEL=TREE@REF`), built before the first round: every spec read
// first (a bad one refused, exit 2, before anything is built), then each
// ref built from contest's checkout of its tree (tree_checkout.h) with the
// one config of the run (kernel_config.h), or found in the cache
// (build_cache.h), and what each became is the spec handed on: a built
// tree for --kernel (an IMAGE of kind tree), IMAGE:INITRD for --boot. The
// .config differences between the labels are said and recorded.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/kbuild/build_record.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"

namespace contest::kbuild {

struct BuildSettings {
    std::filesystem::path workdir;      // contest's: kbuild/ in it holds the trees and the cache
    std::filesystem::path results_dir;  // each label's build log goes to results_dir/LABEL/
    std::filesystem::path config_file;  // --build-config; "" for the target's default
    BuildTarget target = BuildTarget::guest;
    std::string option = "--kernel";  // for the messages
    unsigned jobs = 0;                // make -j; 0: the online CPUs
    // --boot: the root whose lib/modules/ takes the modules, and whether an
    // initramfs is made (the machine's tool, for the real root only).
    std::filesystem::path install_root = "/";
    bool make_initramfs = true;
};

struct BuiltKernel {
    std::string image;  // the spec to hand on in place of TREE@REF
    KernelBuild record;
};

// For each spec, what it was built into; nullopt for a spec that is no
// git ref (looks_like_kernel_ref), which is left as it is. Nothing is made
// when none is a ref.
std::vector<std::optional<BuiltKernel>> build_kernel_refs(const std::vector<KernelSpec>& specs,
                                                          const BuildSettings& settings,
                                                          Progress& progress);

// What build_kernel_refs says of the .config differences: one line a
// label after the first, "B's .config against A's: 2 options differ:
// CONFIG_X: y -> unset, ..." or "... the same".
std::string config_changes_line(const KernelBuild& build);

}  // namespace contest::kbuild
