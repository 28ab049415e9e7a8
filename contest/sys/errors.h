#pragma once
// The exit codes of docs/contract.md ("Exit codes") and the exceptions that
// carry them to main(), which maps an exception to its code by type in one
// place (contest/cli/main.cpp): UsageError (and a Boost.ProgramOptions error)
// 2, EnvironmentError (and std::bad_alloc, std::system_error) 3, StepFailed
// 1, Interrupted 130; any other exception is an internal error, 3 with
// "internal error:".
#include <stdexcept>
#include <string>
#include <utility>

namespace contest {

enum ExitCode : int {
    kExitOk = 0,
    kExitSomeRunsFailed = 1,
    kExitUsage = 2,        // bad option, bad config, bad result file
    kExitEnvironment = 3,  // no compiler, no kernel source, no room on disk
    kExitInternal = 3,     // a bug: an exception contest did not expect
    kExitInterrupted = 130,
};

// Bad usage: unknown load, bad option value, malformed config or result file.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The machine cannot do what was asked: missing tool, source, space, permission.
struct EnvironmentError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An external step (a prepare or clean command, make clean, make tinyconfig,
// unpacking with tar) ran and ended badly: the workload's fault, not
// contest's. A clean that fails fails its run; a set-up step that fails ends
// the suite with kExitSomeRunsFailed. what() names the step, how it ended and
// the log; log() is the file with its output ("" when it has none).
struct StepFailed : std::runtime_error {
    StepFailed(const std::string& what, std::string step, std::string log)
        : std::runtime_error(what), step_(std::move(step)), log_(std::move(log)) {}
    const std::string& step() const { return step_; }
    const std::string& log() const { return log_; }

  private:
    std::string step_, log_;
};

// SIGINT/SIGTERM/SIGHUP arrived while contest was waiting.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace contest
