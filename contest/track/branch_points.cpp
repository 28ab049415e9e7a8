#include "contest/track/branch_points.h"

#include <map>
#include <set>
#include <sstream>

#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::track {

namespace fs = std::filesystem;

std::string resolve_commit(const fs::path& tree, const std::string& ref, const std::string& option,
                           const fs::path& scratch) {
    if (ref.empty() || ref.front() == '-')
        throw UsageError("contest track: " + option + " '" + printable(ref) +
                         "': expected a ref of the tree (a branch, a tag, a commit)");
    const kbuild::GitResult got =
        kbuild::run_git(tree, {"rev-parse", "--verify", "--quiet", ref + "^{commit}"}, scratch);
    const std::vector<std::string> lines = split_lines(got.out);
    if (!got.ok || lines.empty())
        throw UsageError("contest track: " + option + " '" + printable(ref) + "' is no commit of " +
                         printable(tree.string()));
    return lines.front();
}

std::vector<BranchPoint> branch_points(const fs::path& tree, const std::string& from,
                                       const std::string& head, const PointChoice& choice,
                                       const fs::path& scratch) {
    std::vector<std::string> line = {from};
    if (from != head) {
        for (const auto& c : split_lines(kbuild::git_output(
                 tree, {"rev-list", "--first-parent", "--reverse", head, "^" + from}, scratch,
                 "the branch's commits")))
            line.push_back(c);
        // FROM on the first-parent line: the commit just after it has it
        // as its first parent.
        if (line.size() < 2 || kbuild::git_output(tree, {"rev-parse", line[1] + "^1"}, scratch,
                                                  "the first commit's parent") != from)
            throw UsageError("contest track: --from " + from.substr(0, 12) +
                             " is not on the branch's first-parent line (its mainline)");
    }
    // Each commit's tags, by name.
    std::map<std::string, std::set<std::string>> tags;
    for (const auto& row : split_lines(kbuild::git_output(
             tree,
             {"for-each-ref", "--format=%(objectname) %(*objectname) %(refname:short)",
              "refs/tags"},
             scratch, "the tree's tags"))) {
        std::istringstream words(row);
        std::vector<std::string> parts;
        for (std::string w; words >> w;) parts.push_back(w);
        if (parts.size() == 3) tags[parts[1]].insert(parts[2]);  // annotated: its commit
        if (parts.size() == 2) tags[parts[0]].insert(parts[1]);  // lightweight
    }
    const auto point_of = [&](const std::string& commit) {
        const auto t = tags.find(commit);
        return BranchPoint{commit, t != tags.end() ? *t->second.begin() : commit.substr(0, 12)};
    };
    std::vector<BranchPoint> points;
    const std::size_t every = choice.every == "tag" ? 0 : std::stoul(choice.every);
    for (std::size_t i = 0; i < line.size(); ++i)
        if (i == 0 || (every ? i % every == 0 : tags.count(line[i]) > 0))
            points.push_back(point_of(line[i]));
    if (choice.head && points.back().commit != line.back()) points.push_back(point_of(line.back()));
    return points;
}

}  // namespace contest::track
