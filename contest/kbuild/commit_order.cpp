#include "contest/kbuild/commit_order.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "contest/kbuild/git.h"
#include "contest/sys/text.h"

namespace contest::kbuild {

namespace fs = std::filesystem;

std::vector<std::string> commits_in_tree_order(const fs::path& tree,
                                               const std::vector<std::string>& commits,
                                               const fs::path& scratch) {
    std::error_code ec;
    if (commits.empty() || !fs::is_directory(tree, ec)) return {};
    std::set<std::string> wanted(commits.begin(), commits.end());
    // The database's commits are object names, nothing git could take for
    // an option or a revision range.
    for (const auto& c : wanted)
        if (c.size() < 7 || !std::all_of(c.begin(), c.end(), [](char ch) {
                return std::isxdigit(static_cast<unsigned char>(ch));
            }))
            return {};
    std::vector<std::string> args = {"merge-base", "--octopus"};
    args.insert(args.end(), wanted.begin(), wanted.end());
    const GitResult base = run_git(tree, args, scratch);
    const std::vector<std::string> base_lines = split_lines(base.out);
    if (!base.ok || base_lines.empty()) return {};
    // Only the commits between the oldest common ancestor and the newest
    // point: the range the series spans, not the whole history.
    args = {"rev-list", "--topo-order", "--reverse"};
    args.insert(args.end(), wanted.begin(), wanted.end());
    args.push_back("^" + base_lines.front());
    const GitResult listed = run_git(tree, args, scratch);
    if (!listed.ok) return {};
    std::vector<std::string> ordered;
    if (wanted.count(base_lines.front())) ordered.push_back(base_lines.front());
    for (const auto& line : split_lines(listed.out))
        if (wanted.count(line)) ordered.push_back(line);
    if (ordered.size() != wanted.size()) return {};
    return ordered;
}

}  // namespace contest::kbuild
