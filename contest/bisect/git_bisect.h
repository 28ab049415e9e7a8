#pragma once
// `git bisect` as a bisection of contest's runs it: in a bare clone of the
// user's tree of contest's own (workdir/bisect/<the bisection's hash>/repo.git, its
// objects shared through git's alternates), with --no-checkout, so that the
// user's working tree, index, HEAD and branches stay as they were, and git
// only says which commit is next (BISECT_HEAD); contest builds that commit
// from its build checkout of the tree (kbuild/tree_checkout.h) like any
// TREE@REF. The log (`git bisect log`) is kept with the results.
#include <filesystem>
#include <string>
#include <vector>

namespace contest::bisect {

// What git said after a start or a step.
struct BisectNext {
    std::string commit;                 // the next commit to test; "" when git has an answer
    std::string first_bad;              // the first bad commit, once known
    std::vector<std::string> could_be;  // only skipped commits left: the first bad is one of these
    std::string said;                   // git's first line ("Bisecting: 3 revisions left ...")
};

class GitBisect {
  public:
    // The bisection's clone in `folder` (made on first use from `tree`),
    // `scratch` a folder of contest's for git's output.
    GitBisect(const std::filesystem::path& folder, const std::filesystem::path& tree,
              const std::filesystem::path& scratch);

    // `git bisect start --no-checkout BAD GOOD` (a bisection under way reset
    // first). EnvironmentError when git refuses (GOOD not an ancestor of BAD).
    BisectNext start(const std::string& bad, const std::string& good);
    // Another `git bisect good|bad|skip COMMIT`.
    BisectNext mark(const std::string& word, const std::string& commit);
    // `git bisect log`, and `git bisect reset` (the clone kept for the next).
    std::string log() const;
    void reset();

    // Its subject line and author ("Name <mail>").
    std::string subject(const std::string& commit) const;
    std::string author(const std::string& commit) const;

  private:
    BisectNext next(const std::string& said) const;
    std::filesystem::path repo_, scratch_;
};

}  // namespace contest::bisect
