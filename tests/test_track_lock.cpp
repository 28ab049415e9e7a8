// The one-track lock (contest/track/track_lock.h; docs/track.md): keyed by
// the machine, the tree's real path and the database's identity, in the
// machine's folder whatever the workdir, so two contests of one track
// exclude each other however they were started, a root unit's and a user's
// among them, and hosts of a fleet do not.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/bisect/bisect_measure.h"
#include "contest/history/history_db.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/progress.h"
#include "contest/track/track_lock.h"
#include "contest/track/tracking.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
namespace fs = std::filesystem;

namespace {

// A bench no test here may reach: the lock comes before any measuring.
class NoBench : public TrackBench {
  public:
    fs::path measure_point(const std::string&, const fs::path&) override {
        FAIL("measured a point");
        return {};
    }
    std::vector<ResultFile> compare(const std::string&, const std::string&,
                                    const fs::path&) override {
        FAIL("compared");
        return {};
    }
    bisect::BisectState bisect(const std::string&, const std::string&, const fs::path&) override {
        FAIL("bisected");
        return {};
    }
};

TrackOptions options_of(const test::StandIn& s, const std::string& db) {
    TrackOptions o;
    o.tree = s.tree;
    o.branch = "main";
    o.from = s.base;
    o.choice.every = "1";
    o.measure = bisect::parse_bisect_measure("time:cpu_load", {"cpu_load"});
    o.run_words = {"-w", "command", "--workload-cmd", "true", "cpu_load"};
    o.folder = s.scratch / "track";
    o.mail_dir = s.scratch / "mail";
    o.scratch = s.scratch / "git-scratch";
    o.locks = s.scratch / "locks";
    o.machine = "host-a";
    o.db = history::db_target(db, s.scratch.path());
    fs::create_directories(o.scratch);
    fs::create_directories(o.locks);
    return o;
}

}  // namespace

TEST_CASE("track lock: a PostgreSQL database is one identity however its URI spells it",
          "[track][track-lock]") {
    const std::string one = postgresql_identity("postgresql://lab@db.example:5432/contest");
    CHECK(postgresql_identity("postgres://lab@db.example:5432/contest") == one);
    CHECK(postgresql_identity("postgresql://lab:s3cret@DB.Example/contest") == one);
    CHECK(postgresql_identity("postgresql://l%61b@db.example/contest?sslmode=disable") == one);
    CHECK(postgresql_identity("postgresql:///contest?host=db.example&user=lab&port=5432") == one);
    CHECK(postgresql_identity("postgresql://lab@db.example/contest").find("s3cret") ==
          std::string::npos);
    // Another server, port, database or user is another database.
    CHECK(postgresql_identity("postgresql://lab@db2.example/contest") != one);
    CHECK(postgresql_identity("postgresql://lab@db.example:5433/contest") != one);
    CHECK(postgresql_identity("postgresql://lab@db.example/other") != one);
    CHECK(postgresql_identity("postgresql://ops@db.example/contest") != one);
    // A Unix socket's folder by its real path.
    test::ScratchDir dir("track-lock-socket");
    fs::create_directories(dir / "real");
    fs::create_directory_symlink(dir / "real", dir / "link");
    CHECK(postgresql_identity("postgresql:///c?host=" + (dir / "link").string() + "&user=u") ==
          postgresql_identity("postgresql:///c?host=" + (dir / "real").string() + "&user=u"));
}

TEST_CASE("track lock: keyed by the machine, the tree's real path and the database's identity",
          "[track][track-lock]") {
    test::ScratchDir dir("track-lock-key");
    fs::create_directories(dir / "tree");
    fs::create_directory_symlink(dir / "tree", dir / "tree-link");
    const auto sqlite = [&](const fs::path& file) { return history::db_target(file.string(), {}); };
    const std::string name = track_lock_name("m1", dir / "tree", sqlite(dir / "h.sqlite"));
    // The same track spelled otherwise: a link to the tree, the database
    // file through a relative path or a link to its folder.
    CHECK(track_lock_name("m1", dir / "tree-link", sqlite(dir / "h.sqlite")) == name);
    CHECK(track_lock_name("m1", dir / "tree", sqlite(dir / "tree-link" / ".." / "h.sqlite")) ==
          name);
    CHECK(track_lock_name("m1", dir / "tree", sqlite(dir / "tree-link" / "h.sqlite")) ==
          track_lock_name("m1", dir / "tree", sqlite(dir / "tree" / "h.sqlite")));
    // Another machine, tree or database is another track.
    CHECK(track_lock_name("m2", dir / "tree", sqlite(dir / "h.sqlite")) != name);
    CHECK(track_lock_name("m1", dir.path(), sqlite(dir / "h.sqlite")) != name);
    CHECK(track_lock_name("m1", dir / "tree", sqlite(dir / "g.sqlite")) != name);
    CHECK(track_lock_name("m1", dir / "tree", history::db_target("postgres://u@h/d", {})) ==
          track_lock_name("m1", dir / "tree", history::db_target("postgresql://u@h:5432/d", {})));
    CHECK(!this_machine().empty());
}

TEST_CASE(
    "track lock: postgres:// against postgresql:// of one server excludes, another "
    "machine's track does not",
    "[track][track-lock]") {
    test::StandIn s;
    NoBench bench;
    Progress quiet(Progress::Mode::kQuiet);
    // Port 1 of this machine: nothing listens, so a track that gets past
    // the lock fails at once connecting (EnvironmentError), before any run.
    TrackOptions held = options_of(s, "postgres://lab@127.0.0.1:1/contest");
    auto lock = TrackLock::try_take(held.locks / track_lock_name(held.machine, held.tree, held.db));
    REQUIRE(lock);
    TrackOptions other_spelling = options_of(s, "postgresql://lab:pw@127.0.0.1:1/contest");
    other_spelling.folder = s.scratch / "track-2";
    CHECK_THROWS_WITH(run_track(other_spelling, bench, quiet),
                      Catch::Contains("is being tracked by another contest (pid " +
                                      std::to_string(::getpid()) + ")"));
    CHECK_THROWS_AS(run_track(other_spelling, bench, quiet), TrackBusy);
    // A host of a fleet tracking the same path into the same database.
    TrackOptions other_machine = other_spelling;
    other_machine.machine = "host-b";
    CHECK_THROWS_AS(run_track(other_machine, bench, quiet), EnvironmentError);
}

TEST_CASE("track lock: root's and another user's lock exclude each other in the machine's folder",
          "[track][track-lock]") {
    if (::geteuid() != 0) {
        WARN("not root: cannot be another user too; nothing to check");
        return;
    }
    const fs::path folder = machine_lock_folder();
    CHECK(machine_lock_folder() == folder);
    const fs::path file = folder / ("track-test-" + std::to_string(::getpid()) + ".lock");
    // Whether a process as nobody takes the lock: 0 busy, 1 taken, 2 failed.
    const auto nobody_takes = [&](bool hold_until_told, int tell, int told) {
        const pid_t child = ::fork();
        if (child == 0) {
            int code = 2;
            try {
                if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
                    auto held = TrackLock::try_take(file);
                    code = held ? 1 : 0;
                    if (hold_until_told) {
                        char c = 1;
                        (void)!::write(tell, &c, 1);
                        (void)!::read(told, &c, 1);
                    }
                }
            } catch (...) {
                code = 2;
            }
            ::_exit(code);
        }
        return child;
    };
    const auto exit_code = [](pid_t pid) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    {
        auto root_lock = TrackLock::try_take(file);
        REQUIRE(root_lock);
        CHECK(exit_code(nobody_takes(false, -1, -1)) == 0);  // busy, not refused the file
    }
    CHECK_FALSE(fs::exists(file));  // its holder removed it
    int to_parent[2], to_child[2];
    REQUIRE(::pipe(to_parent) == 0);
    REQUIRE(::pipe(to_child) == 0);
    const pid_t child = nobody_takes(true, to_parent[1], to_child[0]);
    char c = 0;
    REQUIRE(::read(to_parent[0], &c, 1) == 1);
    CHECK_FALSE(TrackLock::try_take(file));  // the user's holds: root's track waits its turn
    (void)!::write(to_child[1], &c, 1);
    CHECK(exit_code(child) == 1);
    for (int fd : {to_parent[0], to_parent[1], to_child[0], to_child[1]}) ::close(fd);
    std::error_code ec;
    fs::remove(file, ec);

    // A folder a user made first (their track before root's unit) is taken
    // over by root; a link in its place is refused.
    test::ScratchDir parent("track-lock-shared", "/tmp");  // nobody reaches it
    fs::permissions(parent.path(), fs::perms::all | fs::perms::sticky_bit);
    const fs::path made = parent / "locks";
    const pid_t maker = ::fork();
    if (maker == 0)
        ::_exit(::setgid(65534) == 0 && ::setuid(65534) == 0 && ::mkdir(made.c_str(), 0755) == 0
                    ? 0
                    : 1);
    REQUIRE(exit_code(maker) == 0);
    CHECK(shared_lock_folder(made) == made);
    struct stat st {};
    REQUIRE(::lstat(made.c_str(), &st) == 0);
    CHECK(st.st_uid == 0);
    CHECK((st.st_mode & 07777) == 01777);
    fs::create_directory_symlink("/etc", parent / "link");
    CHECK_THROWS_AS(shared_lock_folder(parent / "link"), EnvironmentError);
}

TEST_CASE(
    "contest track: two of one tree and database with different --workdir exclude each "
    "other",
    "[track][track-lock][e2e]") {
    test::StandIn s;
    const fs::path dir = s.scratch.path();
    const fs::path db = dir / "history.sqlite";
    // The lock as the first contest holds it, from its own words.
    const fs::path file =
        machine_lock_folder() /
        track_lock_name(this_machine(), s.tree, history::db_target(db.string(), {}));
    auto lock = TrackLock::try_take(file);
    REQUIRE(lock);
    for (const char* workdir : {"work-1", "work-2"}) {
        const test::Outcome o = test::run_contest_binary(
            {"track", (s.tree / ".").string(), "--from", s.base, "--every", "1", "--results",
             (dir / (std::string("track-") + workdir)).string(), "--db", db.string(), "--",
             "--workdir", (dir / workdir).string(), "-w", "command", "--workload-cmd", "true",
             "cpu_load"},
            dir, dir);
        INFO(o.out << o.err);
        CHECK(o.exit_code == 2);
        CHECK_THAT(o.err, Catch::Contains("is being tracked by another contest (pid " +
                                          std::to_string(::getpid()) + ")"));
    }
    CHECK(test::leftover_processes().empty());
}
