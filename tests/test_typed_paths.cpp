// What a user typed that names the wrong kind of thing is exit 2, one line,
// and nothing made: --db naming a device, a FIFO, a socket or a link to
// one (SQLite would open it; as root, --db /dev/null made
// /dev/null-journal), history page --out naming a folder, run --journal
// and --resume naming a FIFO. Exit 3 is for the machine (errors.h).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "history_support.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

void check_one_line_exit_2(const Outcome& o, const std::string& says) {
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.find(says) != std::string::npos);
}

// The names SQLite would make beside a database file.
std::vector<fs::path> beside(const fs::path& db) {
    return {db.string() + "-journal", db.string() + "-wal", db.string() + "-shm"};
}

}  // namespace

TEST_CASE("--db naming a FIFO, a socket, a device or a link to one: exit 2, nothing made",
          "[history][typed]") {
    ScratchDir dir("typed-db");
    const fs::path fifo = dir / "fifo.sqlite";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const fs::path socket = dir / "socket.sqlite";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", socket.c_str());
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    ::close(fd);
    fs::create_symlink(fifo, dir / "to-fifo.sqlite");
    fs::create_symlink(dir / "nothing", dir / "to-nothing.sqlite");
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    struct Case {
        fs::path db;
        std::string says;
    };
    std::vector<Case> cases = {{fifo, "a FIFO"},
                               {socket, "a socket"},
                               {dir / "to-fifo.sqlite", "a symbolic link to a FIFO"},
                               {dir / "to-nothing.sqlite", "a symbolic link to nothing"}};
    const auto dev_null = beside("/dev/null");
    const bool dev_null_beside = std::any_of(dev_null.begin(), dev_null.end(),
                                             [](const fs::path& p) { return fs::exists(p); });
    if (!dev_null_beside) cases.push_back({"/dev/null", "a character device"});
    for (const Case& c : cases) {
        INFO(c.db);
        check_one_line_exit_2(run_contest_binary({"history", "--db", c.db.string()}, dir.path()),
                              c.says);
        check_one_line_exit_2(
            run_contest_binary({"history", "import", "--db", c.db.string(), (dir / "in").string()},
                               dir.path()),
            c.says);
        for (const auto& p : beside(c.db)) CHECK_FALSE(fs::exists(fs::symlink_status(p)));
    }
    CHECK_FALSE(fs::exists(dir / "nothing"));
    // A new file in a "folder" that is a file.
    check_one_line_exit_2(
        run_contest_binary({"history", "import", "--db",
                            (dir / "in" / "a.json" / "h.sqlite").string(), (dir / "in").string()},
                           dir.path()),
        "is not a folder");
}

TEST_CASE("history page --out naming a folder, or in none: exit 2", "[history][typed]") {
    ScratchDir dir("typed-page");
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    const std::string db = (dir / "h.sqlite").string();
    const Outcome imported =
        run_contest_binary({"history", "import", "--db", db, (dir / "in").string()}, dir.path());
    INFO(imported.err);
    REQUIRE(imported.exit_code == 0);
    fs::create_directories(dir / "folder");
    check_one_line_exit_2(
        run_contest_binary({"history", "page", "--db", db, "--out", (dir / "folder").string()},
                           dir.path()),
        "a folder");
    check_one_line_exit_2(run_contest_binary({"history", "page", "--db", db, "--out",
                                              (dir / "none" / "p.html").string()},
                                             dir.path()),
                          "no folder");
    // What it may write still is written.
    const Outcome o = run_contest_binary(
        {"history", "page", "--db", db, "--out", (dir / "p.html").string()}, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(fs::is_regular_file(dir / "p.html"));
}

TEST_CASE("run --journal and --resume naming a FIFO: exit 2", "[run][typed]") {
    ScratchDir dir("typed-journal");
    const fs::path fifo = dir / "a.run-journal";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    check_one_line_exit_2(run_contest_binary({"run", "--journal", fifo.string()}, dir.path()),
                          "not a regular file");
    check_one_line_exit_2(run_contest_binary({"run", "--resume", fifo.string()}, dir.path()),
                          "not a regular file");
}
