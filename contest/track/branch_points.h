#pragma once
// The points a track follows on a branch of the user's tree, read only
// (rev-list, for-each-ref through contest's git settings: nothing of the
// tree's config runs a program): the first-parent line from FROM to the
// branch's head, and on it every tagged commit, or every N-th commit, each
// in the branch's order. FROM is always the first point (the baseline).
// Tags on a merged side branch (not on the first-parent line) are not
// points: the mainline's own tags are.
#include <filesystem>
#include <string>
#include <vector>

namespace contest::track {

struct BranchPoint {
    std::string commit;  // the full hash
    std::string name;    // its tag (the first by name), or its first 12 hex digits
};

struct PointChoice {
    std::string every = "tag";  // "tag", or N: every N-th first-parent commit from FROM
    bool head = false;          // the branch's head too, when not one already
};

// The points from `from` (a commit) to `head` (a commit), in order.
// UsageError when `from` is not on head's first-parent line.
std::vector<BranchPoint> branch_points(const std::filesystem::path& tree, const std::string& from,
                                       const std::string& head, const PointChoice& choice,
                                       const std::filesystem::path& scratch);

// A ref of the tree (a branch, a tag, a hash) as its commit's full hash;
// UsageError naming `option` when it is none (or could be read as an option).
std::string resolve_commit(const std::filesystem::path& tree, const std::string& ref,
                           const std::string& option, const std::filesystem::path& scratch);

}  // namespace contest::track
