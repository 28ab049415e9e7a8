#pragma once
// Kernels contest built, kept once (kbuild/cache/ in the workdir), keyed by
// what decides the image: the commit, the patches' hashes, the config's
// hash, the compiler's version and what it is built for. A key met again
// builds nothing. An entry is a folder:
//   tree/          a built tree as --kernel takes one (tree/arch/x86/boot/bzImage,
//                  tree/.config, tree/modules.builtin, tree/staging/lib/modules/R/
//                  when the kernel has modules)
//   record.json    the KernelBuild that made it
//   build.log      its build's log
// made under a partial name and renamed whole. A build from a checkout
// that was not clean is never an entry: it goes to uncached-<pid>-<n>/,
// removed once its contest is gone.
#include <filesystem>
#include <optional>
#include <string>

#include "contest/kbuild/build_record.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"

namespace contest::kbuild {

// The key: SHA-256 of every input that decides the image, in hex.
std::string cache_key(const KernelRef& ref, const std::string& config_sha256,
                      const std::string& compiler, BuildTarget target);

class BuildCache {
  public:
    // The cache in `folder` (made); what contests that are gone left half
    // made is removed.
    explicit BuildCache(std::filesystem::path folder);

    // The entry of key, when it is whole.
    std::optional<KernelBuild> find(const std::string& key) const;

    // A fresh folder to assemble an entry in (this process's own).
    std::filesystem::path partial() const;
    // Where the entry of key goes, or an uncached build's (clean false).
    std::filesystem::path final_folder(const std::string& key, bool clean) const;
    // partial moved to final (its record.json written first).
    void commit(const std::filesystem::path& partial, const std::filesystem::path& final,
                const KernelBuild& record) const;

  private:
    std::filesystem::path folder_;
};

}  // namespace contest::kbuild
