#pragma once
// A test that cannot run on this machine (not root, no block device under
// the scratch folder, ...) says so and is counted as skipped, never as
// passed: CONTEST_SKIP records why and ends the test case; the test binary
// then exits with kSkipExitCode when nothing failed, which ctest
// (SKIP_RETURN_CODE in tests/CMakeLists.txt) lists as "Skipped". Catch2 v2
// has no skip of its own. A failure anywhere still fails the run.
#include <catch2/catch.hpp>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace contest::test {

inline constexpr int kSkipExitCode = 77;
// The start of the line every skip prints; `make test` lists those lines.
inline constexpr const char* kSkipMark = "contest-test-skip: ";

// "test case: why", one for every skip in this run of the binary.
inline std::vector<std::string>& skips() {
    static std::vector<std::string> reasons;
    return reasons;
}

inline void record_skip(const std::string& why) {
    std::string line = Catch::getResultCapture().getCurrentTestName() + ": " + why;
    std::cout << kSkipMark << line << std::endl;
    skips().push_back(std::move(line));
}

// The binary's exit code: Catch's (the failures) when anything failed, else
// kSkipExitCode when a test skipped, else 0.
inline int exit_code(int catch_result) {
    if (catch_result != 0) return catch_result == kSkipExitCode ? 1 : catch_result;
    if (skips().empty()) return 0;
    std::cout << skips().size() << " test case(s) skipped:\n";
    for (const auto& s : skips()) std::cout << "  " << s << "\n";
    std::cout << std::flush;
    return kSkipExitCode;
}

}  // namespace contest::test

// Ends the test case here, counted as skipped for `why` (streamed, as in
// INFO). Only in a TEST_CASE's own body: it returns from the function.
#define CONTEST_SKIP(why)                                     \
    do {                                                      \
        std::ostringstream contest_skip_why;                  \
        contest_skip_why << why;                              \
        ::contest::test::record_skip(contest_skip_why.str()); \
        return;                                               \
    } while (false)
