// The results database on PostgreSQL: the same checks as on SQLite
// (history_support.h) on a server the test starts itself
// (postgres_server.h), and what only a server can do wrong: be down, or
// refuse the login. Skipped, not passed, where PostgreSQL is not installed.
#include <functional>
#include <thread>

#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/owed_saves.h"
#include "contest/history/pg_uri.h"
#include "contest/history/schema.h"
#include "contest/sys/errors.h"
#include "contest/sys/packed_text.h"
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
            session_of(db) << std::string("DROP TABLE ") + table;
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

TEST_CASE(
    "history on PostgreSQL: two importers of the same files at once, a run counted once, a "
    "refused file skipped",
    "[history][postgresql][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-runs");
    PostgresServer server(*bin, dir / "pg");
    check_two_importers_of_the_same_files(server.uri(), dir / "same");
    check_a_run_counted_once(server.uri(), dir / "once");
    check_a_refused_file_skipped(server.uri(), dir / "refused", [](HistoryDb& db) {
        session_of(db) << "CREATE FUNCTION refuse_bad() RETURNS trigger LANGUAGE plpgsql AS "
                          "'BEGIN RAISE EXCEPTION ''refused by the test''; END'";
        session_of(db) << "CREATE TRIGGER refuse BEFORE INSERT ON files FOR EACH ROW WHEN "
                          "(NEW.label = 'bad') EXECUTE FUNCTION refuse_bad()";
    });
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
        return run_contest_binary(quick_run(dir.path(), results, server.uri()), dir.path());
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
                          Catch::Contains("history sync"));
    CHECK(result_files(dir / "later").size() == 1);
    server.shut();
    CHECK(leftover_processes().empty());
}

namespace {

// Every value of every column of every table of the server's database as
// text, and each packed file (files.content) unpacked.
std::string every_value(HistoryDb& db) {
    std::vector<std::string> tables;
    {
        soci::rowset<std::string> rs =
            (session_of(db).prepare << "SELECT table_name FROM information_schema.tables WHERE "
                                       "table_schema = current_schema()");
        tables.assign(rs.begin(), rs.end());
    }
    std::string all;
    for (const auto& table : tables) {
        std::vector<std::string> columns;
        {
            soci::rowset<std::string> rs =
                (session_of(db).prepare
                 << "SELECT column_name FROM information_schema.columns WHERE "
                    "table_schema = current_schema() AND table_name = '" +
                        table + "'");
            columns.assign(rs.begin(), rs.end());
        }
        for (const auto& column : columns) {
            soci::rowset<std::string> rs =
                (session_of(db).prepare
                 << "SELECT COALESCE(CAST(" + column + " AS TEXT), '') FROM " + table);
            for (const auto& v : rs) {
                all += v + "\n";
                if (table == "files" && column == "content")
                    all += unpacked_text(v, 64u << 20).value_or("(not packed text)") + "\n";
            }
        }
    }
    return all;
}

// The files under dir that hold any of needles, and the needle.
std::vector<std::string> files_holding(const fs::path& dir,
                                       const std::vector<std::string>& needles) {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        const std::string text = slurp(it->path());
        for (const auto& n : needles)
            if (text.find(n) != std::string::npos) found.push_back(it->path().string() + ": " + n);
    }
    return found;
}

// A password with what URIs and shells make much of.
const std::string kPassword = "Pw?7@x%41&y=z";

}  // namespace

TEST_CASE("history on PostgreSQL: the URI forms people write connect, over TCP and a socket",
          "[history][postgresql][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-uris");
    PostgresServer server(*bin, dir / "pg", TcpLogin{kPassword});
    const std::string port = std::to_string(server.port());
    const std::vector<std::string> forms = {
        // As --help and docs/fleet.md write it: no query string (SOCI 4.0
        // made the database "postgres=" of it).
        server.tcp_uri("contest", kPassword),
        server.tcp_uri("contest", kPassword, "postgres", "sslmode=disable"),
        server.tcp_uri("contest", kPassword, "postgres", "connect_timeout=5&application_name=c"),
        "postgres://contest:" + uri_percent_encoded(kPassword) + "@127.0.0.1:" + port + "/postgres",
        "postgresql://127.0.0.1:" + port +
            "/postgres?user=contest&password=" + uri_percent_encoded(kPassword),
        "postgresql:///postgres?host=127.0.0.1&port=" + port +
            "&user=contest&password=" + uri_percent_encoded(kPassword),
        // A Unix socket: its folder percent-encoded as the host, or in the query.
        "postgresql://contest@" + uri_percent_encoded(server.socket_dir().string()) + ":" + port +
            "/postgres",
        server.uri(),
    };
    for (const auto& uri : forms) {
        INFO(uri);
        HistoryDb db(db_target(uri, {}), OpenFor::writing);
        CHECK(db.schema_version() == current_schema_version());
        const Outcome o = run_contest_binary({"history", "--db", uri}, dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 0);
    }
    // No password in the URI: libpq's own places, here PGPASSWORD.
    {
        const Outcome refused =
            run_contest_binary({"history", "--db", server.tcp_uri("contest")}, dir.path());
        CHECK(refused.exit_code == 3);
        ::setenv("PGPASSWORD", kPassword.c_str(), 1);
        const Outcome o =
            run_contest_binary({"history", "--db", server.tcp_uri("contest")}, dir.path());
        ::unsetenv("PGPASSWORD");
        INFO(o.err);
        CHECK(o.exit_code == 0);
    }
    // A wrong password: exit 3, one line, no password in it.
    const std::string wrong = "Wr0ng?pw@%41";
    const Outcome o =
        run_contest_binary({"history", "--db", server.tcp_uri("contest", wrong)}, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 3);
    CHECK(o.err.find("password authentication failed") != std::string::npos);
    CHECK(o.err.find("Wr0ng") == std::string::npos);
    CHECK(o.err.find(uri_percent_encoded(wrong)) == std::string::npos);
    // restart(): the same port, the data kept.
    server.restart();
    {
        HistoryDb db(db_target(forms.front(), {}), OpenFor::reading);
        CHECK(db.schema_version() == current_schema_version());
    }
    server.shut();
    CHECK(leftover_processes().empty());
}

TEST_CASE("history on PostgreSQL: --db's password is in no file, report, post, row or argv",
          "[history][postgresql][sink][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-secret");
    PostgresServer server(*bin, dir / "pg", TcpLogin{kPassword});
    const std::string uri = server.tcp_uri("contest", kPassword);
    // The password's own bytes as the URI writes them, and as libpq reads them.
    const std::vector<std::string> needles = {uri_percent_encoded(kPassword), kPassword, "Pw?7"};
    const std::vector<std::string> words = quick_run(dir.path(), "results", uri);
    const pid_t pid = start_contest(words, dir.path());
    // Once it has warned, argv's bytes no longer hold the password.
    std::string cmdline;
    for (int i = 0; i < 2000 && slurp(dir / "stderr").find("PGPASSWORD") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cmdline = slurp("/proc/" + std::to_string(pid) + "/cmdline");
    const Outcome o = finish_contest(pid, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.err.find("~/.pgpass") != std::string::npos);
    if (!cmdline.empty()) {  // empty: it ended before the look
        CHECK(cmdline.find("--db") != std::string::npos);
        for (const auto& n : needles) CHECK(cmdline.find(n) == std::string::npos);
    }
    // Its runs went into the database, through the password.
    {
        HistoryDb db(db_target(uri, {}), OpenFor::reading);
        CHECK(count_rows(db, "runs") == 2);
        const std::string rows = every_value(db);
        CHECK(rows.find("lab-kernel") != std::string::npos);
        CHECK(rows.find("127.0.0.1") != std::string::npos);  // the URI without the password
        for (const auto& n : needles) CHECK(rows.find(n) == std::string::npos);
    }
    CHECK(files_holding(dir / "results", needles).empty());
    // The URI is recorded, without it (config.command_line, the journal).
    CHECK_FALSE(files_holding(dir / "results", {"contest@127.0.0.1:"}).empty());
    CHECK(files_holding(dir / "work", needles).empty());
    // Every report format, and the mail body.
    for (const char* format : {"text", "html", "json", "markdown", "csv"}) {
        const Outcome r = run_contest_binary(
            {"report", "-f", format, "--stats", (dir / "results").string()}, dir.path());
        INFO(format << ": " << r.err);
        CHECK(r.exit_code == 0);
        for (const auto& n : needles) CHECK(r.out.find(n) == std::string::npos);
    }
    const Outcome p = run_contest_binary({"post", (dir / "results").string()}, dir.path());
    INFO(p.err);
    CHECK(p.exit_code == 0);
    for (const auto& n : needles) CHECK(p.out.find(n) == std::string::npos);
    server.shut();
    CHECK(leftover_processes().empty());
}

TEST_CASE("history on PostgreSQL: a URI libpq cannot read is exit 2, one line, no password",
          "[history][pg_uri]") {
    ScratchDir dir("history-pg-bad-uri");
    for (const std::string uri : {"postgresql://%zz@/%%%", "postgresql://lab:PW%zzSECRET@h/db"}) {
        for (const std::string command : {"history", "run"}) {
            const Outcome o = run_contest_binary({command, "--db", uri}, dir.path());
            INFO(command << " " << uri << ": " << o.err);
            CHECK(o.exit_code == 2);
            CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
            CHECK(o.err.find("SECRET") == std::string::npos);
            CHECK(o.err.find("libpq cannot read") != std::string::npos);
        }
    }
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

TEST_CASE(
    "history on PostgreSQL: a server away for a while mid-run gets every run once it is back, "
    "and history sync brings in what a run's end still owed",
    "[history][postgresql][sink][owed][e2e]") {
    const auto bin = postgres_bin_dir();
    if (!bin) CONTEST_SKIP(kNoServer);
    ScratchDir dir("history-pg-owed");
    PostgresServer server(*bin, dir / "pg");
    const std::string uri = server.uri();
    const fs::path results = dir / "results";
    // 12 runs: time to stop the server after the first.
    const std::vector<std::string> run = quick_run(dir.path(), "results", uri, "owed-kernel", "12");
    // The server stopped once the run has saved a run, and started again
    // once a save was owed: every run in the database at the run's end.
    fs::create_directories(dir / "out");
    const pid_t contest = start_contest(run, dir / "out");
    const fs::path list = results / kOwedFile;
    const auto wait_for = [](const std::function<bool()>& done) {
        for (int i = 0; i < 6000 && !done(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return done();
    };
    REQUIRE(wait_for([&] { return !result_files(results).empty(); }));
    server.stop();
    // a save was owed while it was away
    REQUIRE(wait_for([&] { return fs::exists(list); }));
    server.restart();
    const Outcome o = finish_contest(contest, dir / "out");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("is back"));
    CHECK_FALSE(fs::exists(list));
    {
        HistoryDb db(db_target(uri, {}), OpenFor::reading);
        CHECK(count_rows(db, "files") == 1);
        CHECK(count_rows(db, "runs") == 12);
    }
    // Away at the run's end: owed, said; sync is exit 3 while the server is
    // down, then brings the run in once, the list gone.
    server.stop();
    const std::vector<std::string> second =
        quick_run(dir.path(), "results", uri, "owed-later", "12");
    Outcome later = run_contest_binary(second, dir.path());
    INFO(later.err);
    REQUIRE(later.exit_code == 0);
    CHECK_THAT(later.err, Catch::Contains("1 save(s) owed"));
    const std::vector<std::string> sync = {"history", "sync",      "--db",
                                           uri,       "--results", results.string()};
    CHECK(run_contest_binary(sync, dir.path()).exit_code == 3);
    server.restart();
    later = run_contest_binary(sync, dir.path());
    INFO(later.out << later.err);
    CHECK(later.exit_code == 0);
    CHECK_THAT(later.out, Catch::Contains("brought 1 owed file(s) (12 runs)"));
    {
        HistoryDb db(db_target(uri, {}), OpenFor::reading);
        CHECK(count_rows(db, "files") == 2);
        CHECK(count_rows(db, "runs") == 24);
    }
    CHECK_FALSE(fs::exists(list));
    server.shut();
    CHECK(leftover_processes().empty());
}
