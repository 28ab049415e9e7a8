#include "contest/kbuild/git.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

std::string read_and_remove(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::error_code ec;
    fs::remove(file, ec);
    return text.str();
}

// The settings every git call is given on its command line, over any of a
// repository's own config: contest runs git as root on a user's tree
// (safe.directory), whose .git/config could otherwise name a program for
// git to run. Each setting that names a program is given one of the
// machine's own that does nothing (true, false, cat) or is switched off:
// hooks, fsmonitor, the command that lists an alternate's refs (a
// fetch's), signing and its verification (a signed commit under
// log.showSignature runs gpg.program), the pager and editors, external
// diffs, credential helpers, ssh and every transport but a local path's.
// (A diff driver's textconv or a filter driver is named per driver, so it
// cannot be overridden here: contest runs no diff, and checks out only in
// its clone, whose config is its own.) A setting git reads only from the
// system's and the
// user's config (uploadpack.packObjectsHook) is root's own; those are not
// read either (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL in run_git).
const char* const kGitSettings[] = {
    "safe.directory=*",
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.alternateRefsCommand=true",
    "core.pager=cat",
    "core.editor=true",
    "sequence.editor=true",
    "core.askPass=true",
    "core.sshCommand=false",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
    "push.gpgSign=false",
    "log.showSignature=false",
    "gpg.program=false",
    "gpg.openpgp.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "gpg.ssh.defaultKeyCommand=false",
    "diff.external=true",
    "credential.helper=",
    "protocol.allow=never",
    "protocol.file.allow=always",
    "protocol.ext.allow=never",
    "user.name=contest",
    "user.email=contest@localhost",
};

std::string without_trailing_newlines(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

}  // namespace

std::string GitResult::first_error_line() const {
    const std::string& text = trim_blanks(err).empty() ? out : err;
    for (const auto& line : split_lines(text))
        if (!trim_blanks(line).empty()) return printable(trim_blanks(line));
    return "";
}

GitResult run_git(const fs::path& dir, const std::vector<std::string>& args,
                  const fs::path& scratch, const std::vector<std::string>& env) {
    if (!find_on_path("git"))
        throw EnvironmentError("git not found: install the Debian package git");
    std::vector<std::string> argv = {"git"};
    for (const char* setting : kGitSettings) argv.insert(argv.end(), {"-c", setting});
    argv.insert(argv.end(), {"-C", dir.string()});
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string stem = "git-" + std::to_string(::getpid());
    const fs::path out = scratch / (stem + ".out"), err = scratch / (stem + ".err");
    SpawnOptions so;
    so.out = StdStream::file(out, false);
    so.err = StdStream::file(err, false);
    so.env_overrides = {"GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
                        "GIT_EDITOR=true",       "GIT_SEQUENCE_EDITOR=true",
                        "GIT_PAGER=cat",         "PAGER=cat",
                        "GIT_ASKPASS=true",      "SSH_ASKPASS=true",
                        "GIT_SSH_COMMAND=false", "GIT_EXTERNAL_DIFF=true",
                        "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                        "GIT_ATTR_NOSYSTEM=1",   "GIT_OPTIONAL_LOCKS=0"};
    // A caller's setting replaces contest's of the same name (a child's
    // getenv takes the first of two).
    std::erase_if(so.env_overrides, [&](const std::string& mine) {
        const std::string name = mine.substr(0, mine.find('=') + 1);
        return std::any_of(env.begin(), env.end(),
                           [&](const std::string& e) { return e.starts_with(name); });
    });
    so.env_overrides.insert(so.env_overrides.end(), env.begin(), env.end());
    const auto started = std::chrono::steady_clock::now();
    const pid_t pid = spawn(argv, so);
    GroupGuard guard(pid);
    const ExitInfo info = wait_child(pid, started);
    guard.stop();
    GitResult r;
    r.ok = info.exited_ok();
    r.out = read_and_remove(out);
    r.err = read_and_remove(err);
    return r;
}

std::string git_output(const fs::path& dir, const std::vector<std::string>& args,
                       const fs::path& scratch, const std::string& what) {
    GitResult r = run_git(dir, args, scratch);
    if (!r.ok) throw EnvironmentError(what + " failed: " + r.first_error_line());
    return without_trailing_newlines(r.out);
}

}  // namespace contest::kbuild
