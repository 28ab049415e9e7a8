#include "contest/bisect/git_bisect.h"

#include <system_error>

#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::bisect {

namespace fs = std::filesystem;
using kbuild::git_output;
using kbuild::run_git;

namespace {

bool is_hash(const std::string& word) {
    if (word.size() < 7 || word.size() > 64) return false;
    for (char c : word)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace

GitBisect::GitBisect(const fs::path& folder, const fs::path& tree, const fs::path& scratch)
    : repo_(folder / "repo.git"), scratch_(scratch) {
    std::error_code ec;
    if (fs::exists(repo_ / "HEAD", ec)) return;
    fs::create_directories(folder, ec);
    // Cloned beside its place, then renamed into it: a clone cut (a SIGKILL
    // of the robot's loop) leaves only the partial one, removed at the next
    // start, not a repo.git that every later clone is refused into. A
    // repo.git without HEAD is one an earlier contest's cut clone left.
    const fs::path partial = folder / "repo.git.partial";
    fs::remove_all(partial, ec);
    fs::remove_all(repo_, ec);
    const auto r =
        run_git(folder, {"clone", "--bare", "--shared", "--quiet", tree.string(), partial.string()},
                scratch_);
    if (!r.ok)
        throw EnvironmentError("contest bisect: cannot clone " + printable(tree.string()) + ": " +
                               r.first_error_line());
    fs::rename(partial, repo_, ec);
    if (ec)
        throw EnvironmentError("contest bisect: cannot rename its clone into " +
                               printable(repo_.string()) + ": " + ec.message());
}

BisectNext GitBisect::next(const std::string& said) const {
    BisectNext n;
    const auto lines = split_lines(said);
    n.said = lines.empty() ? "" : lines.front();
    for (const auto& line : lines) {
        const auto at = line.find(" is the first bad commit");
        if (at != std::string::npos && is_hash(line.substr(0, at)))
            n.first_bad = line.substr(0, at);
    }
    if (said.find("only 'skip'ped commits left to test") != std::string::npos) {
        for (const auto& line : lines)
            if (is_hash(line)) n.could_be.push_back(line);
        return n;
    }
    if (n.first_bad.empty())
        n.commit = git_output(repo_, {"rev-parse", "--verify", "BISECT_HEAD"}, scratch_,
                              "contest bisect: the next commit");
    return n;
}

BisectNext GitBisect::start(const std::string& bad, const std::string& good) {
    run_git(repo_, {"bisect", "reset"}, scratch_);
    const auto r = run_git(repo_, {"bisect", "start", "--no-checkout", bad, good}, scratch_);
    if (!r.ok) throw EnvironmentError("contest bisect: git bisect start: " + r.first_error_line());
    return next(r.out);
}

BisectNext GitBisect::mark(const std::string& word, const std::string& commit) {
    const auto r = run_git(repo_, {"bisect", word, commit}, scratch_);
    // `git bisect skip` of the last candidates exits 2 with its list of them.
    if (!r.ok && r.out.find("only 'skip'ped commits") == std::string::npos)
        throw EnvironmentError("contest bisect: git bisect " + word + ": " + r.first_error_line());
    return next(r.out);
}

std::string GitBisect::log() const {
    return git_output(repo_, {"bisect", "log"}, scratch_, "contest bisect: git bisect log");
}

void GitBisect::reset() {
    run_git(repo_, {"bisect", "reset"}, scratch_);
}

std::string GitBisect::subject(const std::string& commit) const {
    return git_output(repo_, {"log", "-1", "--format=%s", commit}, scratch_,
                      "contest bisect: the subject of " + commit);
}

std::string GitBisect::author(const std::string& commit) const {
    return git_output(repo_, {"log", "-1", "--format=%an <%ae>", commit}, scratch_,
                      "contest bisect: the author of " + commit);
}

}  // namespace contest::bisect
