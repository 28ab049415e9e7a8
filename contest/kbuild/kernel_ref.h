#pragma once
// A kernel given as a git ref (`--kernel LABEL=TREE@REF`, `--boot` alike),
// with an optional patch series on top: TREE@REF+PATCH.
//  - TREE: a git work tree (its top folder, or any folder in it); the
//    first '@' whose left side is an existing folder ends it, so a tree
//    path with '@' in it works.
//  - REF: any commit-ish of TREE's (a branch, a tag, a hash, HEAD~3),
//    resolved in TREE once, when the spec is read.
//  - PATCH: after the first '+' whose right side is an existing file or
//    folder: one patch file (a `git format-patch` mail or mbox series,
//    applied with `git am`; a plain diff, applied with `git apply` and
//    committed), or a folder of them, applied in name order (a
//    cover letter, 0000-*, skipped). A '+' in REF stays REF's.
//  - %OPTIONS: after the first '%' past TREE@: the label's own config
//    options (label_options.h), `%CONFIG_HZ_1000=y%# CONFIG_X is not set`
//    or `%FRAGMENT-FILE`; so a REF or PATCH with a '%' cannot be given.
// A spec that names an existing file or folder whole keeps its old
// meaning (an image, a tree); one with no '@' is no ref.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "contest/kbuild/label_options.h"

namespace contest::kbuild {

struct PatchFile {
    std::filesystem::path path;
    std::string sha256;  // of its bytes: what the cache is keyed by
};

struct KernelRef {
    std::string spec;                // TREE@REF[+PATCH] as given
    std::filesystem::path tree;      // the work tree's top folder, absolute
    std::string ref;                 // REF as given
    std::string commit;              // REF resolved: the full hash
    std::string subject;             // its subject line
    std::string commit_date;         // its committer date, RFC 2822 (KBUILD_BUILD_TIMESTAMP)
    std::vector<PatchFile> patches;  // in the order they are applied
    LabelOptions options;            // laid over the run's config for this label alone
};

// Whether spec is to be read as TREE@REF: it has an '@' and names no
// existing file or folder whole.
bool looks_like_kernel_ref(const std::string& spec);

// Reads spec (looks_like_kernel_ref) for `option` (--kernel LABEL, for
// the messages), resolving REF in TREE with git; `scratch` is a folder of
// contest's for git's output. UsageError, one line naming what is wrong:
// no folder before an '@', not a git tree, REF no commit, a patch folder
// with no patch in it, a bad option (read_label_options).
KernelRef read_kernel_ref(const std::string& spec, const std::string& option,
                          const std::filesystem::path& scratch);

// spec with the paths it names absolute: an image, build tree or package
// file that exists, or TREE, PATCH and each FRAGMENT-FILE of
// TREE@REF[+PATCH][%OPTIONS]; a
// package's name as it is. A run's journal keeps its kernels so, to be
// taken on from any folder.
std::string absolute_kernel_spec(const std::string& spec);

// The patch files PATCH names, in the order they are applied.
std::vector<std::filesystem::path> patch_files(const std::filesystem::path& patch);

}  // namespace contest::kbuild
