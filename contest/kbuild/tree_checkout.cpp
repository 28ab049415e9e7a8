#include "contest/kbuild/tree_checkout.h"

#include <fstream>

#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

// Whether a patch file is a mail (`git format-patch`, an mbox series),
// which `git am` applies as commits; otherwise a plain diff.
bool is_mail(const fs::path& patch) {
    std::ifstream in(patch);
    std::string line;
    std::getline(in, line);
    return line.starts_with("From ");
}

void append_to_log(const fs::path& log, const std::string& what, const GitResult& r) {
    std::ofstream out(log, std::ios::app);
    out << "contest: " << what << (r.ok ? "" : " (failed)") << "\n" << r.out << r.err;
}

}  // namespace

fs::path tree_folder(const fs::path& trees, const fs::path& tree) {
    const fs::path top = fs::weakly_canonical(tree);
    std::string name = top.filename().string();
    if (name.empty() || label_problem(name)) name = "tree";
    return trees / (name + "-" + sha256_hex(top.string()).substr(0, 12));
}

TreeCheckout::TreeCheckout(const fs::path& trees, const fs::path& tree, const std::string& option)
    : folder_(tree_folder(trees, tree)),
      source_(folder_ / "src"),
      build_(folder_ / "build"),
      option_(option) {
    std::error_code ec;
    fs::create_directories(build_, ec);
    if (ec) throw EnvironmentError("cannot make " + build_.string() + ": " + ec.message());
    lock_ = FileLock::try_take(folder_ / "lock");
    if (!lock_)
        throw EnvironmentError(option + ": another contest (pid " +
                               std::to_string(FileLock::holder(folder_ / "lock")) +
                               ") is building in " + folder_.string() + ": one at a time");
    if (fs::exists(source_ / ".git", ec)) return;
    fs::remove_all(source_, ec);
    const fs::path partial = folder_ / "src.partial";
    fs::remove_all(partial, ec);
    const GitResult r = run_git(folder_,
                                {"clone", "--quiet", "--shared", "--no-checkout", "--",
                                 fs::absolute(tree).string(), partial.string()},
                                folder_);
    if (!r.ok)
        throw EnvironmentError(option + ": cannot clone " + tree.string() + " into " +
                               partial.string() + ": " + r.first_error_line());
    fs::rename(partial, source_, ec);
    if (ec) throw EnvironmentError("cannot move " + partial.string() + ": " + ec.message());
}

void TreeCheckout::check_out(const KernelRef& ref, const fs::path& log) {
    std::error_code ec;
    // What a contest killed while applying a patch left.
    if (fs::exists(source_ / ".git/rebase-apply", ec))
        append_to_log(log, "git am --abort", run_git(source_, {"am", "--abort"}, folder_));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"reset", "--quiet", "--hard"},
          {"clean", "--quiet", "-fdx"},
          {"checkout", "--quiet", "--force", "--detach", ref.commit}}) {
        const GitResult r = run_git(source_, args, folder_);
        append_to_log(log, "git " + join(args, " "), r);
        if (!r.ok)
            throw EnvironmentError(option_ + ": cannot check out " + ref.commit + " in " +
                                   source_.string() + " (git " + args.front() +
                                   "): " + r.first_error_line());
    }
    for (const auto& patch : ref.patches) apply(ref, patch, log);
}

void TreeCheckout::apply(const KernelRef& ref, const PatchFile& patch, const fs::path& log) {
    // A plain diff becomes a commit of contest's, dated as REF, so the
    // checkout is clean and the commit the same every time.
    const std::vector<std::string> dates = {"GIT_AUTHOR_DATE=" + ref.commit_date,
                                            "GIT_COMMITTER_DATE=" + ref.commit_date};
    const bool mail = is_mail(patch.path);
    GitResult r =
        mail ? run_git(source_, {"am", "--quiet", "--", patch.path.string()}, folder_, dates)
             : run_git(source_, {"apply", "--index", "--", patch.path.string()}, folder_);
    append_to_log(log, (mail ? "git am " : "git apply ") + patch.path.string(), r);
    if (r.ok && !mail) {
        r = run_git(source_,
                    {"commit", "--quiet", "--no-verify", "-m",
                     "contest: " + patch.path.filename().string() + " applied"},
                    folder_, dates);
        append_to_log(log, "git commit", r);
    }
    if (r.ok) return;
    const std::string why = r.first_error_line();
    if (mail) run_git(source_, {"am", "--abort"}, folder_);
    run_git(source_, {"reset", "--quiet", "--hard", ref.commit}, folder_);
    throw StepFailed(option_ + ": the patch " + printable(patch.path.string()) +
                         " does not apply to " + ref.commit.substr(0, 12) + " (" +
                         printable(ref.ref) + "): " + why + "; see " + log.string(),
                     "applying " + patch.path.string(), log.string());
}

std::string TreeCheckout::head() const {
    return git_output(source_, {"rev-parse", "HEAD"}, folder_, "reading the checkout's HEAD");
}

bool TreeCheckout::clean() const {
    const GitResult r = run_git(source_, {"status", "--porcelain", "--ignored=no"}, folder_);
    return r.ok && trim_blanks(r.out).empty();
}

}  // namespace contest::kbuild
