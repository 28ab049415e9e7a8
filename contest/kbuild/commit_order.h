#pragma once
// Builds of one tree in the order its history has them, for the results
// database's series (contest/history/series.h's CommitOrder): the user's
// tree is only read (merge-base, rev-list), through contest's git settings.
#include <filesystem>
#include <string>
#include <vector>

namespace contest::kbuild {

// `commits`, oldest first as tree's history orders them (topological: a
// commit after every commit it descends from); empty when it cannot say
// (the tree is not a git repository here, a commit is not in it, the
// commits share no ancestor). `scratch` is a folder of contest's for git's
// output.
std::vector<std::string> commits_in_tree_order(const std::filesystem::path& tree,
                                               const std::vector<std::string>& commits,
                                               const std::filesystem::path& scratch);

}  // namespace contest::kbuild
