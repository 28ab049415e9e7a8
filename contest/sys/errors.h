#pragma once
// The exit codes of SPEC.md and the exceptions that carry them to main().
#include <stdexcept>
#include <string>

namespace contest {

enum ExitCode : int {
    kExitOk = 0,
    kExitSomeRunsFailed = 1,
    kExitUsage = 2,        // bad option, bad config, bad result file
    kExitEnvironment = 3,  // no compiler, no kernel source, no room on disk
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

// SIGINT/SIGTERM/SIGHUP arrived while contest was waiting.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

}  // namespace contest
