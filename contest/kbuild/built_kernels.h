#pragma once
// The kernels of a run given as git refs (`--kernel LABEL=TREE@REF`,
// `--boot LABEL=TREE@REF`), built before the first round: every spec read
// first (a bad one refused, exit 2, before anything is built), then each
// ref built from contest's checkout of its tree (tree_checkout.h) with the
// one config of the run (kernel_config.h), or found in the cache
// (build_cache.h), and what each became is the spec handed on: a built
// tree (an IMAGE of kind tree). The .config differences between the labels
// are said and recorded. For --boot, install_for_boot then makes each
// build bootable on this machine (IMAGE:INITRD), once the run's start has
// checked everything else: nothing is installed for a start that is
// refused, or whose later label does not build.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/kbuild/build_cache.h"
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
    // The cache's bound (build_cache.h): once the run's kernels are built,
    // the entries least recently used go until it holds at most this.
    double cache_max_gib = kDefaultCacheMaxGiB;
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

// --boot: each built kernel's release installed under settings.install_root
// (its modules in lib/modules/, boot_install.h) and its initramfs made, the
// spec handed on (and its record's image) IMAGE:INITRD. Returns the releases
// this call made (one already installed by the same build is not among
// them); when one fails, those it made are removed before the error goes on.
std::vector<std::string> install_for_boot(std::vector<std::optional<BuiltKernel>>& built,
                                          const BuildSettings& settings, Progress& progress);

// Removes the releases install_for_boot made (remove_release: only a
// folder with contest's mark).
void remove_releases(const std::vector<std::string>& releases, const std::filesystem::path& root);

// What build_kernel_refs says of the .config differences: one line a
// label after the first, "B's .config against A's: 2 options differ:
// CONFIG_X: y -> unset, ..." or "... the same".
std::string config_changes_line(const KernelBuild& build);

}  // namespace contest::kbuild
