#include "contest/track/tree_fetch.h"

#include <sys/stat.h>
#include <unistd.h>

#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::track {

namespace fs = std::filesystem;

namespace {

// Over contest's settings (which allow a local path only): the transports
// a lab's remote may use. ssh is the machine's own (GIT_SSH_COMMAND below,
// which git takes over core.sshCommand), never asking (BatchMode: a unit
// has no terminal). A gc that fetch starts stays in the foreground, so no
// git outlives contest.
const char* const kFetchSettings[] = {
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "protocol.file.allow=always",
    "gc.autoDetach=false",
};

const char* const kFetchEnvironment[] = {"GIT_SSH_COMMAND=ssh -o BatchMode=yes"};

// The uid that owns the tree's .git (its common folder: a worktree's
// objects and refs are its main clone's).
uid_t git_folder_owner(const fs::path& tree, const fs::path& scratch, fs::path& git_dir) {
    git_dir = kbuild::git_output(tree, {"rev-parse", "--path-format=absolute", "--git-common-dir"},
                                 scratch, "contest track --fetch: finding the tree's .git");
    struct stat st {};
    if (::stat(git_dir.c_str(), &st) != 0)
        throw EnvironmentError("contest track --fetch: cannot read " + printable(git_dir.string()));
    return st.st_uid;
}

}  // namespace

RemoteBranch remote_branch_of(const std::string& followed) {
    const auto slash = followed.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == followed.size() ||
        followed.front() == '-')
        throw UsageError(
            "contest track: --fetch follows a remote's branch: give --branch "
            "REMOTE/BRANCH (origin/master), not '" +
            printable(followed) + "'");
    return {followed.substr(0, slash), followed.substr(slash + 1)};
}

void fetch_followed_branch(const fs::path& tree, const std::string& followed,
                           const fs::path& scratch) {
    const RemoteBranch rb = remote_branch_of(followed);
    const std::string ref = "refs/heads/" + rb.branch;
    if (!kbuild::run_git(tree, {"check-ref-format", ref}, scratch).ok)
        throw UsageError("contest track: --branch '" + printable(followed) + "': '" +
                         printable(rb.branch) + "' is no branch name");
    const kbuild::GitResult url =
        kbuild::run_git(tree, {"config", "--get", "remote." + rb.remote + ".url"}, scratch);
    if (!url.ok || trim_blanks(url.out).empty())
        throw UsageError("contest track: --fetch: " + printable(tree.string()) +
                         " has no remote '" + printable(rb.remote) +
                         "' (git remote -v lists its remotes)");
    fs::path git_dir;
    const uid_t owner = git_folder_owner(tree, scratch, git_dir);
    if (owner != ::geteuid())
        throw UsageError("contest track: --fetch: " + printable(git_dir.string()) +
                         " belongs to uid " + std::to_string(owner) + ", contest runs as uid " +
                         std::to_string(::geteuid()) +
                         ": a fetch would leave files of its own in another user's clone; run "
                         "the track as the clone's owner, or give it a clone of its own");
    std::vector<std::string> args;
    for (const char* setting : kFetchSettings) args.insert(args.end(), {"-c", setting});
    // The remote's upload-pack named here: remote.NAME.uploadpack of the
    // tree's config is a program run on this machine for a local path.
    args.insert(args.end(), {"fetch", "--quiet", "--tags", "--no-recurse-submodules",
                             "--upload-pack=git-upload-pack", "--", rb.remote,
                             "+" + ref + ":refs/remotes/" + rb.remote + "/" + rb.branch});
    const kbuild::GitResult got = kbuild::run_git(
        tree, args, scratch, {std::begin(kFetchEnvironment), std::end(kFetchEnvironment)});
    if (!got.ok)
        throw EnvironmentError("contest track --fetch: fetching " + printable(rb.branch) +
                               " from " + printable(rb.remote) + " (" +
                               printable(trim_blanks(url.out)) +
                               ") failed: " + printable(got.first_error_line()));
}

}  // namespace contest::track
