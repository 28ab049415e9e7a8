// A PostgreSQL URI as contest reads it (contest/history/pg_uri.h) and the
// password taken out of contest's words at its start
// (contest/cli/db_password.h): read by libpq's own parser, whatever the
// password holds, and never shown, recorded or left in argv.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "contest/cli/db_password.h"
#include "contest/history/history_db.h"
#include "contest/history/pg_uri.h"
#include "contest/sys/errors.h"

using namespace contest;
using namespace contest::history;

namespace {

// The options libpq reads, less the password.
PgOptions without_the_password(PgOptions o) {
    std::erase_if(o, [](const auto& kv) { return kv.first == "password"; });
    return o;
}

// What a password looks like in a URI, raw or percent-encoded as written.
void check_nowhere(const std::string& text, const std::vector<std::string>& forms) {
    for (const auto& f : forms) {
        INFO(text << " holds " << f);
        CHECK(text.find(f) == std::string::npos);
    }
}

}  // namespace

TEST_CASE("pg_uri: the password libpq reads is the one taken out, whatever it holds",
          "[history][pg_uri]") {
    struct Case {
        std::string uri, password;
        std::vector<std::string> forms;  // the password's bytes as written in the URI
    };
    const std::vector<Case> cases = {
        {"postgresql://lab:s3cret@db.example/contest", "s3cret", {"s3cret"}},
        // libpq reads the user-info up to '@': a '?' is the password's.
        {"postgresql://bob:s3?cr3t@host/db", "s3?cr3t", {"s3?cr3t", "cr3t"}},
        {"postgresql://bob:s3?cr3t@host:5432/db?sslmode=disable", "s3?cr3t", {"cr3t"}},
        // '@' and '/' percent-encoded, '%xx' decoded by libpq.
        {"postgresql://bob:p%40ss%2Fw%41rd@127.0.0.1:54329/lab", "p@ss/wArd", {"p%40ss", "w%41rd"}},
        {"postgres://:onlypw@h/c", "onlypw", {"onlypw"}},
        {"postgresql:///contest?host=/run&password=s3cret&user=x", "s3cret", {"s3cret"}},
        {"postgresql:///contest?pass%77ord=s3cret&user=x", "s3cret", {"s3cret"}},
        {"postgresql://u:first@h/db?password=second", "second", {"first", "second"}},
    };
    for (const Case& c : cases) {
        INFO(c.uri);
        REQUIRE(pg_uri_password(c.uri) == c.password);
        const std::string clean = without_password(c.uri);
        INFO(clean);
        CHECK_FALSE(pg_uri_password(clean));
        CHECK(pg_uri_options(clean) == without_the_password(pg_uri_options(c.uri)));
        check_nowhere(clean, c.forms);
        const DbTarget t = db_target(c.uri, {});
        CHECK(t.kind == DbKind::postgresql);
        check_nowhere(t.shown, c.forms);
    }
    // Only the password's bytes go: the rest is as written.
    CHECK(without_password("postgresql://lab:s3cret@db.example/contest") ==
          "postgresql://lab@db.example/contest");
    CHECK(without_password("postgresql:///contest?host=/run&password=s3cret&user=x") ==
          "postgresql:///contest?host=/run&user=x");
    CHECK(without_password("postgresql://h/db") == "postgresql://h/db");
}

TEST_CASE("pg_uri: a URI libpq cannot read is one UsageError line without the password",
          "[history][pg_uri]") {
    for (const std::string uri : {"postgresql://%zz@/%%%", "postgresql://u:p%zzSECRET@h/db",
                                  "postgresql://u:SECRET@h/db?x", "postgresql://[::1/db"}) {
        INFO(uri);
        try {
            db_target(uri, {});
            FAIL("no error");
        } catch (const UsageError& e) {
            const std::string what = e.what();
            INFO(what);
            CHECK(what.find("SECRET") == std::string::npos);
            CHECK(what.find('\n') == std::string::npos);
            CHECK(what.find("libpq cannot read") != std::string::npos);
        }
    }
}

TEST_CASE("pg_uri: SOCI's connect string is the URI's options, that SOCI 4.0 gives back as is",
          "[history][pg_uri]") {
    const std::string uri = "postgresql://lab:a%20b%22c=d@127.0.0.1:54329/lab";
    const std::string s = soci_connect_string(uri);
    INFO(s);
    // SOCI splits its connect string at blanks and '"'-quotes; it appends
    // '=' to a word without one.
    CHECK(s.find_first_of(" \t\n\"'\\") == std::string::npos);
    CHECK(s.find('=') != std::string::npos);
    PgOptions want = pg_uri_options(uri);
    want.emplace_back("connect_timeout", std::to_string(kPgConnectTimeoutS));
    PgOptions got = pg_uri_options(s);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
    // A connect_timeout given is kept.
    CHECK(soci_connect_string("postgresql://h/db?connect_timeout=3").find("connect_timeout=3") !=
          std::string::npos);
    CHECK(soci_connect_string("postgresql://h/db?connect_timeout=3").find("connect_timeout=10") ==
          std::string::npos);
}

TEST_CASE("db_password: a URI's password leaves argv's own bytes for PGPASSWORD",
          "[history][pg_uri]") {
    // argv as the kernel lays it out: the words one after the other, each
    // ended by a NUL (what /proc/PID/cmdline shows).
    const std::vector<std::string> words = {"contest",
                                            "run",
                                            "--db",
                                            "postgresql://lab:s3?cr%40t@127.0.0.1:54329/lab",
                                            "-n",
                                            "2",
                                            "--db=postgres://lab:s3?cr%40t@h/db"};
    std::string area;
    for (const auto& w : words) area += w + '\0';
    std::vector<char*> argv;
    for (std::size_t at = 0; at < area.size(); at += std::strlen(area.data() + at) + 1)
        argv.push_back(area.data() + at);
    const char* before = std::getenv("PGPASSWORD");
    const std::string saved = before ? before : "";
    std::ostringstream warn;
    REQUIRE(move_db_password_to_environment(static_cast<int>(argv.size()), argv.data(), warn));
    CHECK(db_password_moved_to_environment());
    CHECK(std::string(std::getenv("PGPASSWORD")) == "s3?cr@t");
    CHECK(area.find("s3?cr") == std::string::npos);
    CHECK(area.find("%40t") == std::string::npos);
    CHECK(std::string(argv[3]) == "postgresql://lab@127.0.0.1:54329/lab");
    CHECK(std::string(argv[6]) == "--db=postgres://lab@h/db");
    CHECK(std::string(argv[4]) == "-n");
    CHECK(warn.str().find("~/.pgpass") != std::string::npos);
    CHECK(std::count(warn.str().begin(), warn.str().end(), '\n') == 1);
    // Two passwords cannot both go in PGPASSWORD.
    std::string prog = "contest", a = "postgresql://u:one@h/db", b = "postgresql://u:two@h/db";
    char* two[] = {prog.data(), a.data(), b.data()};
    CHECK_THROWS_AS(move_db_password_to_environment(3, two, warn), UsageError);
    // Words without one take none (and leave this process as it was).
    char* none[] = {prog.data(), b.data() + b.size()};
    CHECK_FALSE(move_db_password_to_environment(2, none, warn));
    CHECK_FALSE(db_password_moved_to_environment());
    if (before)
        ::setenv("PGPASSWORD", saved.c_str(), 1);
    else
        ::unsetenv("PGPASSWORD");
}
