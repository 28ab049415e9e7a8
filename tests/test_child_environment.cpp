// What contest's children are given of its environment
// (contest/sys/child_environment.h): a variable set for the contests alone
// (PGPASSWORD from --db's URI) reaches a child that is contest itself, and
// no other: a load, a workload, a probe's program get what contest was
// given (the user's own value, or none).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "contest/sys/child_environment.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "contest/sys/timed_starts.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// A process's environment as /proc/PID/environ had it, a line a variable.
std::vector<std::string> environment_in(const fs::path& file) {
    std::vector<std::string> vars;
    std::ifstream in(file);
    for (std::string var; std::getline(in, var, '\0');) vars.push_back(var);
    return vars;
}

bool holds(const std::vector<std::string>& vars, const std::string& var) {
    return std::find(vars.begin(), vars.end(), var) != vars.end();
}

bool names(const std::vector<std::string>& vars, const std::string& name) {
    return std::any_of(vars.begin(), vars.end(),
                       [&](const std::string& v) { return v.starts_with(name + "="); });
}

// A shell (by its path: TimedStarts searches no PATH) that writes its own
// /proc/PID/environ to `to`.
std::vector<std::string> environment_writer(const fs::path& to) {
    return {"/bin/sh", "-c", "cat /proc/$$/environ > '" + to.string() + "'"};
}

}  // namespace

// Run by the test below as a child of it: this very binary, so contest
// itself by child_environment.h's rule.
TEST_CASE("writes its environment where it is told (helper)", "[.environment-helper]") {
    const char* to = std::getenv("CONTEST_TEST_ENVIRONMENT_TO");
    REQUIRE(to);
    // Read, not copied: a file of /proc says it is empty.
    std::ofstream(to) << test::slurp("/proc/self/environ");
}

TEST_CASE(
    "a variable set for the contests alone reaches a child that is contest, and any other child "
    "gets the value contest was given, or none",
    "[spawn][db]") {
    test::ScratchDir dir("child-environment");
    CHECK(is_contest_program("/proc/self/exe"));
    CHECK(is_contest_program(fs::read_symlink("/proc/self/exe")));
    CHECK_FALSE(is_contest_program("/bin/sh"));
    CHECK_FALSE(is_contest_program(dir / "nothing-here"));

    ::setenv("CONTEST_TEST_USERS_OWN", "the user's", 1);
    ::unsetenv("CONTEST_TEST_NONE_BEFORE");
    set_for_contests_only("CONTEST_TEST_USERS_OWN", "for contests");
    set_for_contests_only("CONTEST_TEST_NONE_BEFORE", "for contests");
    CHECK(std::string(std::getenv("CONTEST_TEST_USERS_OWN")) == "for contests");

    // A program of the user's, spawned.
    const pid_t sh = spawn(environment_writer(dir / "sh.env"));
    CHECK(wait_for_exit(sh) == 0);
    const auto other = environment_in(dir / "sh.env");
    CHECK(holds(other, "CONTEST_TEST_USERS_OWN=the user's"));
    CHECK_FALSE(names(other, "CONTEST_TEST_NONE_BEFORE"));
    CHECK(names(other, "PATH"));  // the rest as it was

    // A start the exec probe times: the same.
    std::int64_t started = 0;
    const pid_t timed = TimedStarts(environment_writer(dir / "timed.env")).start(started);
    CHECK(wait_for_exit(timed) == 0);
    const auto timed_env = environment_in(dir / "timed.env");
    CHECK(holds(timed_env, "CONTEST_TEST_USERS_OWN=the user's"));
    CHECK_FALSE(names(timed_env, "CONTEST_TEST_NONE_BEFORE"));

    // contest itself (this binary, as a track starts its points): both.
    SpawnOptions options;
    options.env_overrides = {"CONTEST_TEST_ENVIRONMENT_TO=" + (dir / "self.env").string()};
    options.log_to(dir / "self.log");
    const pid_t self =
        spawn({"/proc/self/exe", "writes its environment where it is told (helper)"}, options);
    CHECK(wait_for_exit(self) == 0);
    INFO(test::slurp(dir / "self.log"));
    const auto contest = environment_in(dir / "self.env");
    CHECK(holds(contest, "CONTEST_TEST_USERS_OWN=for contests"));
    CHECK(holds(contest, "CONTEST_TEST_NONE_BEFORE=for contests"));

    ::unsetenv("CONTEST_TEST_USERS_OWN");
    ::unsetenv("CONTEST_TEST_NONE_BEFORE");
}

TEST_CASE(
    "a password --db gave, moved to PGPASSWORD, is in no load's, workload's or probe's environment",
    "[db][loads][e2e]") {
    test::ScratchDir dir("db-password-children");
    const std::string password = "Pw7-children";
    // No server there: the run warns that it cannot store its runs, and ends well.
    const std::string uri = "postgresql://contest:" + password + "@127.0.0.1:1/none";
    const auto env_of = [&](const std::string& who) { return (dir / (who + ".env")).string(); };
    // clang-format off
    const std::vector<std::string> words = {
        "run", "--workdir=" + (dir / "work").string(), "--results=" + (dir / "results").string(),
        "-q", "--no-drop-caches", "-k", "env-test", "-n", "1", "--warmup", "0.3", "--db", uri,
        "-w", "command", "--workload-cmd",
        "sh -c 'cat /proc/$$/environ > " + env_of("workload") + "; sleep 0.3'",
        "--latency", "exec", "--latency-exec-cmd",
        "sh -c 'cat /proc/$$/environ > " + env_of("probe") + "'",
        "--load-cmd", "envload=sh -c 'cat /proc/$$/environ > " + env_of("load") + "; exec sleep 600'",
        "envload"};
    // clang-format on
    const auto o = test::run_contest_binary(words, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("passes it on in PGPASSWORD"));
    for (const char* who : {"load", "workload", "probe"}) {
        INFO(who);
        REQUIRE(fs::exists(env_of(who)));
        CHECK(test::slurp(env_of(who)).find(password) == std::string::npos);
        // PGPASSWORD as contest was given it: none, or the user's own.
        const auto vars = environment_in(env_of(who));
        if (const char* own = std::getenv("PGPASSWORD"))
            CHECK(holds(vars, "PGPASSWORD=" + std::string(own)));
        else
            CHECK_FALSE(names(vars, "PGPASSWORD"));
        CHECK(names(vars, "PATH"));  // an environment, read whole
    }
    CHECK(test::leftover_processes().empty());
}
