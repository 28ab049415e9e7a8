#pragma once
// What contest built for a label (or found built before): the record a
// result file keeps under config.kernel.build, and the cache keeps beside
// the image.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"

namespace contest::kbuild {

struct KernelBuild {
    std::string label;
    std::string spec;  // TREE@REF[+PATCH] as given
    std::string tree, ref, commit, subject;
    std::vector<PatchFile> patches;
    std::string head;                  // the commit built: REF's, or the last patch's on top
    std::string config_source;         // ConfigChoice::source
    std::vector<std::string> options;  // the label's own, laid over the config (.config lines)
    std::string config_sha256;         // of the config chosen and the options (the key's)
    std::string dot_config_sha256;     // of the .config olddefconfig made
    std::string compiler;              // `gcc --version`'s first line
    std::string toolchain;             // toolchain_text(): binutils, pahole, KCFLAGS, KCPPFLAGS
    std::string key;                   // the cache's
    std::string release;               // the image's (uname -r in it)
    std::string localversion;          // --boot: LOCALVERSION, which makes the release unique
    bool cached = false;               // kept in the cache (a dirty tree's build is not)
    bool cache_hit = false;            // nothing was built: the cache had it
    double build_s = 0;                // the build's own seconds (the one that made it, on a hit)
    std::optional<long long> ccache_hits, ccache_misses;  // during the build, with ccache
    std::string image;  // what --kernel or --boot is given: a built tree, IMAGE:INITRD
    std::string log;    // the build's log
    std::vector<ConfigChange> config_changes;  // against the first label's .config
    std::string changes_against;               // that label

    nlohmann::json to_json() const;
    // The record from to_json's object (the cache's); nullopt when it is not one.
    static std::optional<KernelBuild> from_json(const nlohmann::json& j);
};

}  // namespace contest::kbuild
