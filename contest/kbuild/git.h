#pragma once
// git as contest runs it on a kernel tree: the user's tree only read
// (rev-parse, log, merge-base, the clone's upload-pack), contest's own
// clone of it written. Every call is one process whose output and errors
// go through files in a folder of contest's, so a long `git am` never
// fills a pipe. contest runs git as root on a user's tree (which git's
// safe.directory check refuses otherwise), so nothing of the tree's
// config may make git run a program: every setting that can (hooks,
// fsmonitor, signing and its verification, pager, editors, external
// diff, credential helpers, ssh, the ext transport) is given on git's
// command line, over the tree's, as one of the machine's own that does
// nothing or off; the system's and global config are not read; the
// commits contest makes have an identity of its own.
#include <filesystem>
#include <string>
#include <vector>

namespace contest::kbuild {

struct GitResult {
    bool ok = false;
    std::string out;  // its standard output
    std::string err;  // its standard error, for the one line a failure says
    // The first line of err, or of out when err is empty ("" when both are).
    std::string first_error_line() const;
};

// `git -C dir ARGS` with contest's settings; `scratch` is a folder of
// contest's that takes its output files; `env`'s NAME=VALUE replace
// contest's own of those names. EnvironmentError when git cannot
// be started (not installed).
GitResult run_git(const std::filesystem::path& dir, const std::vector<std::string>& args,
                  const std::filesystem::path& scratch, const std::vector<std::string>& env = {});

// The same, its standard output without trailing newlines; EnvironmentError
// naming `what` and git's first line when it fails.
std::string git_output(const std::filesystem::path& dir, const std::vector<std::string>& args,
                       const std::filesystem::path& scratch, const std::string& what);

}  // namespace contest::kbuild
