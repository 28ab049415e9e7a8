#pragma once
// Kernels contest built, kept once (kbuild/cache/ in the workdir), keyed by
// what decides the image: the commit, the patches' hashes, the config's
// hash, the compiler's version, the rest of the toolchain (binutils,
// pahole, KCFLAGS and KCPPFLAGS: kernel_build.h's toolchain_text) and what
// it is built for. A key met again builds nothing. The cache is bounded:
// once a build is in, the entries least recently used (built or met
// again) are removed until it holds at most its bound, never one the run
// uses. An entry is a folder:
//   tree/          a built tree as --kernel takes one (tree/arch/x86/boot/bzImage,
//                  tree/.config, tree/modules.builtin, tree/staging/lib/modules/R/
//                  when the kernel has modules)
//   record.json    the KernelBuild that made it
//   build.log      its build's log
//   used           its last use: the file's time
//   initrd.img-R-S --boot: its initramfs for this machine's set-up S
// made under a partial name and renamed whole. A build from a checkout
// that was not clean is never an entry: it goes to uncached-<pid>-<n>/,
// removed once its contest is gone.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "contest/kbuild/build_record.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"

namespace contest::kbuild {

// The key: SHA-256 of every input that decides the image, in hex.
std::string cache_key(const KernelRef& ref, const std::string& config_sha256,
                      const std::string& compiler, const std::string& toolchain,
                      BuildTarget target);

// The bound a run's cache is kept to, unless its run says otherwise
// (--build-cache-max).
inline constexpr double kDefaultCacheMaxGiB = 20;

class BuildCache {
  public:
    // The cache in `folder` (made); what contests that are gone left half
    // made is removed.
    explicit BuildCache(std::filesystem::path folder);

    // The entry of key, when it is whole (and then marked used now).
    std::optional<KernelBuild> find(const std::string& key) const;
    // Marks the entry of key used now.
    void mark_used(const std::string& key) const;

    // A fresh folder to assemble an entry in (this process's own).
    std::filesystem::path partial() const;
    // Where the entry of key goes, or an uncached build's (clean false).
    std::filesystem::path final_folder(const std::string& key, bool clean) const;
    // partial moved to final (its record.json written first).
    void commit(const std::filesystem::path& partial, const std::filesystem::path& final,
                const KernelBuild& record) const;

    // The whole entries, least recently used first, removed until the
    // entries hold at most max_bytes in all; never one of `keep` (the
    // run's own, which its guests or its start still read). Returns the
    // keys removed.
    std::vector<std::string> evict(std::uintmax_t max_bytes,
                                   const std::set<std::string>& keep) const;
    // The bytes an entry's files hold.
    static std::uintmax_t entry_bytes(const std::filesystem::path& entry);

  private:
    std::filesystem::path folder_;
};

}  // namespace contest::kbuild
