#pragma once
// contest's own checkout of a user's kernel tree, one per tree, kept in
// contest's workdir (kbuild/trees/<name>-<hash of its path>/) with the
// build folder beside it: src/, a `git clone --shared --no-checkout` of the
// tree (its objects read through git's alternates, nothing copied), and
// build/, make's O= folder.
//
// Why a clone and not `git worktree add`: a worktree is registered in the
// user's repository (its .git/worktrees/, `git worktree list`, a `git
// worktree prune` or a moved tree breaking it), and a kept one would stay
// there between runs; a shared clone writes nothing in the user's
// repository, whose working tree, index, HEAD and branches stay as they
// were, and it is kept between runs: a new REF is checked out over the
// last one, so only the files that differ get a new time and make rebuilds
// only what depends on them. Its commits (patches applied) go to its own
// objects.
//
// One contest at a time builds in a tree's folder (a lock).
#include <filesystem>
#include <optional>
#include <string>

#include "contest/kbuild/kernel_ref.h"
#include "contest/sys/file_lock.h"

namespace contest::kbuild {

class TreeCheckout {
  public:
    // The tree's folder under `trees` (made, the clone made on first use),
    // locked; `option` names the label in messages. EnvironmentError when
    // another contest builds there, or the clone cannot be made.
    TreeCheckout(const std::filesystem::path& trees, const std::filesystem::path& tree,
                 const std::string& option);

    const std::filesystem::path& source() const { return source_; }
    const std::filesystem::path& build() const { return build_; }

    // ref's commit checked out (whatever the clone held before reset), its
    // patches applied on top, git's output appended to log. StepFailed,
    // one line, when a patch does not apply (the checkout then reset).
    void check_out(const KernelRef& ref, const std::filesystem::path& log);

    // The commit checked out now, and whether the checkout is clean (no
    // change, no untracked file).
    std::string head() const;
    bool clean() const;

  private:
    void apply(const KernelRef& ref, const PatchFile& patch, const std::filesystem::path& log);

    std::filesystem::path folder_, source_, build_;
    std::string option_;
    std::optional<FileLock> lock_;
};

// The folder under `trees` that holds tree's checkout and build folder.
std::filesystem::path tree_folder(const std::filesystem::path& trees,
                                  const std::filesystem::path& tree);

}  // namespace contest::kbuild
