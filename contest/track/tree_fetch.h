#pragma once
// `contest track --fetch`: the robot's clone brought up to date before the
// track reads its branch. The followed branch is the remote's
// (`--branch REMOTE/BRANCH`, origin/master), fetched into its
// remote-tracking ref (refs/remotes/REMOTE/BRANCH) with the remote's tags,
// never into a local branch: a clone's checked-out branch is one git
// refuses to fetch into, and the track reads commits only. The fetch is
// git as contest runs it (kbuild/git.h: none of the tree's config can make
// git run a program, safe.directory given on the command line), with the
// transports a remote of a lab's may use allowed: https, ssh (the machine's
// own `ssh`, never a core.sshCommand of the tree's) and a local path (a
// mirror). It writes into the tree's .git, so it is made only into a tree
// of contest's own user: root's files in a clone another user owns would
// break that user's git. docs/track.md.
#include <filesystem>
#include <string>

namespace contest::track {

// The remote and its branch of a --branch REMOTE/BRANCH (cut at the first
// '/'); UsageError naming --fetch when it is not of that shape.
struct RemoteBranch {
    std::string remote, branch;
};
RemoteBranch remote_branch_of(const std::string& followed);

// Fetches REMOTE's BRANCH into refs/remotes/REMOTE/BRANCH, and its tags,
// in `tree` (its top folder). UsageError for a remote the tree has not, or
// a tree another user owns; EnvironmentError naming the remote's URL and
// git's line when the fetch fails (the remote unreachable, refused).
// `scratch`: a folder of contest's for git's output.
void fetch_followed_branch(const std::filesystem::path& tree, const std::string& followed,
                           const std::filesystem::path& scratch);

}  // namespace contest::track
