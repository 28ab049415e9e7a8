#include "contest/kbuild/git.h"

#include <unistd.h>

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
    std::vector<std::string> argv = {"git",
                                     "-c",
                                     "safe.directory=*",
                                     "-c",
                                     "core.hooksPath=/dev/null",
                                     "-c",
                                     "core.fsmonitor=false",
                                     "-c",
                                     "commit.gpgSign=false",
                                     "-c",
                                     "user.name=contest",
                                     "-c",
                                     "user.email=contest@localhost",
                                     "-C",
                                     dir.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string stem = "git-" + std::to_string(::getpid());
    const fs::path out = scratch / (stem + ".out"), err = scratch / (stem + ".err");
    SpawnOptions so;
    so.out = StdStream::file(out, false);
    so.err = StdStream::file(err, false);
    so.env_overrides = {"GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_EDITOR=true",
                        "GIT_OPTIONAL_LOCKS=0"};
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
