#pragma once
// git as contest runs it on a kernel tree: the user's tree only read
// (rev-parse, log), contest's own clone of it written. Every call is one
// process whose output and errors go through files in a folder of
// contest's, so a long `git am` never fills a pipe, and whose
// configuration cannot run anything of the tree's: hooks off, no
// fsmonitor, no signing, an identity of contest's own for the commits it
// makes, and the tree accepted whoever owns it (contest runs as root on a
// user's tree, which git's safe.directory check refuses otherwise).
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
// contest's that takes its output files. EnvironmentError when git cannot
// be started (not installed).
GitResult run_git(const std::filesystem::path& dir, const std::vector<std::string>& args,
                  const std::filesystem::path& scratch, const std::vector<std::string>& env = {});

// The same, its standard output without trailing newlines; EnvironmentError
// naming `what` and git's first line when it fails.
std::string git_output(const std::filesystem::path& dir, const std::vector<std::string>& args,
                       const std::filesystem::path& scratch, const std::string& what);

}  // namespace contest::kbuild
