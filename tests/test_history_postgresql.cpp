// The results database on PostgreSQL: the same checks as on SQLite
// (history_support.h) on a server the test starts itself
// (postgres_server.h), and what only a server can do wrong: be down, or
// refuse the login. Skipped, not passed, where PostgreSQL is not installed.
#include "contest/history/history_db.h"
#include "contest/history/schema.h"
#include "contest/sys/errors.h"
#include "history_support.h"
#include "postgres_server.h"
#include "triage_support.h"

using namespace contest;
using namespace contest::history;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* kNoServer =
    "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; `make deps-test` "
    "installs the package postgresql)";

}  // namespace

TEST_CASE("history on PostgreSQL: import, idempotence, a newer schema, two importers",
          "[history][postgresql][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg");
    PostgresServer server(*bin, dir / "pg");
    const DbTarget target = db_target(server.uri(), {});
    REQUIRE(target.kind == DbKind::postgresql);
    {
        HistoryDb db(target, OpenFor::writing);
        CHECK(db.schema_version() == current_schema_version());
    }
    check_import_is_idempotent(target, dir.path());
    {
        HistoryDb db(target, OpenFor::writing);
        for (const char* table :
             {"change_mails", "change_triage", "changes", "probe_percentiles", "run_measures",
              "runs", "files", "kernels", "machines", "workloads", "schema_version"})
            db.sql() << std::string("DROP TABLE ") + table;
    }
    check_two_importers_at_once(server.uri(), dir / "two");
    check_newer_schema_refused(target);
    // A newer schema through the command: one line, exit 2.
    const Outcome o = run_contest_binary({"history", "--db", server.uri()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err.find("newer") != std::string::npos);
    server.shut();
    CHECK(leftover_processes().empty());
}

TEST_CASE("history on PostgreSQL: a server that refuses the login, or is down, is one line",
          "[history][postgresql][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-down");
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    {
        PostgresServer server(*bin, dir / "pg");

        Outcome o = run_contest_binary(
            {"history", "import", "--db", server.uri("intruder"), (dir / "in").string()},
            dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("cannot connect") != std::string::npos);
        CHECK(o.err.find("intruder") != std::string::npos);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);

        server.stop();
        o = run_contest_binary({"history", "import", "--db", server.uri(), (dir / "in").string()},
                               dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("cannot connect") != std::string::npos);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    }
    // The server and its watchdog are gone with the guard.
    CHECK(leftover_processes().empty());
}

TEST_CASE("history on PostgreSQL: the server goes when the test is killed",
          "[history][postgresql]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-kill");
    // A child that starts a server and is then killed with SIGKILL: no
    // destructor runs, and the watchdog must stop the server.
    adopt_orphans();  // the server and its watchdog come back to this process, to reap
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        try {
            PostgresServer server(*bin, dir / "pg");
            const pid_t pid = server.pid();
            if (::write(fds[1], &pid, sizeof pid) != sizeof pid) ::_exit(1);
            ::pause();
        } catch (...) {
        }
        ::_exit(1);
    }
    ::close(fds[1]);
    pid_t server = -1;
    const bool started = ::read(fds[0], &server, sizeof server) == sizeof server;
    ::close(fds[0]);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    REQUIRE(started);
    bool gone = false;
    for (int i = 0; i < 1000 && !gone; ++i) {
        while (::waitpid(-1, nullptr, WNOHANG) > 0) {
        }
        gone = ::kill(server, 0) != 0;
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(gone);
    CHECK(leftover_processes().empty());
}

TEST_CASE(
    "history on PostgreSQL: contest run saves every run into a lab's server, and goes on "
    "without it when it is down",
    "[history][postgresql][sink][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-run");
    PostgresServer server(*bin, dir / "pg");
    auto run = [&](const std::string& results) {
        return run_contest_binary(
            {"run", "-k", "lab-kernel", "-n", "2", "-w", "synthetic", "--synthetic-size", "4",
             "--warmup", "0.2", "--workdir", (dir / "work").string(), "--results",
             (dir / results).string(), "--quiet", "--db", server.uri(), "no_load"},
            dir.path());
    };
    Outcome o = run("results");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    {
        HistoryDb db(db_target(server.uri(), {}), OpenFor::reading);
        CHECK(count_rows(db, "files") == 1);
        CHECK(count_rows(db, "runs") == 2);
    }
    CHECK_FALSE(fs::exists(dir / "results" / kDefaultDbFile));
    // The server down: one warning, the run done, its runs in its file.
    server.stop();
    o = run("later");
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("warning") && Catch::Contains("cannot connect") &&
                          Catch::Contains("history import"));
    CHECK(result_files(dir / "later").size() == 1);
    server.shut();
    CHECK(leftover_processes().empty());
}

TEST_CASE("history on PostgreSQL: triage round trip, a change's identity, alerts, one mail",
          "[history][postgresql][triage][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-triage");
    PostgresServer server(*bin, dir / "pg");
    const DbTarget target = db_target(server.uri(), {});
    check_triage_round_trip(target, dir / "round");
    check_triage_identity_and_groups(target, dir / "groups");
    server.shut();
    CHECK(leftover_processes().empty());
}
