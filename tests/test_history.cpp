// The results database on SQLite (contest/history; docs/history.md): the
// import of the committed examples and its idempotence, the failures that
// must be one line and leave nothing half-written (not a database, a
// corrupt one, a newer schema, an import cut short), two contests writing
// at once, the series in kernel order, and `contest history` end to end.
#include <fstream>

#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/pg_uri.h"
#include "contest/history/series.h"
#include "contest/history/stored_files.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "history_support.h"

using namespace contest;
using namespace contest::history;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

std::string one_line_error(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("history: the committed examples imported into SQLite, again adds nothing", "[history]") {
    ScratchDir dir("history-import");
    const DbTarget target = db_target("", dir.path() / "results");
    CHECK(target.where == (dir.path() / "results" / "history.sqlite").string());
    check_import_is_idempotent(target, dir.path());
    // WAL: two contests may read and write at once.
    HistoryDb db(target, OpenFor::reading);
    std::string mode;
    session_of(db) << "PRAGMA journal_mode", soci::into(mode);
    CHECK(mode == "wal");
}

TEST_CASE("history: a file that is not a database is one line and left as it was", "[history]") {
    ScratchDir dir("history-notdb");
    const fs::path file = dir / "history.sqlite";
    const std::string text = "these are notes, not a database\n";
    put_file(file, text);
    for (OpenFor mode : {OpenFor::reading, OpenFor::writing}) {
        const std::string what =
            one_line_error([&] { HistoryDb db(db_target(file.string(), {}), mode); });
        INFO(what);
        CHECK(what.find(file.string()) != std::string::npos);
        CHECK(what.find("not a database") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
    CHECK(slurp(file) == text);
    // Another program's SQLite database is not made one of contest's.
    const fs::path other = dir / "other.sqlite";
    {
        HistoryDb db(db_target(other.string(), {}), OpenFor::writing);
        session_of(db) << "DROP TABLE schema_version";
    }
    const std::string what =
        one_line_error([&] { HistoryDb db(db_target(other.string(), {}), OpenFor::writing); });
    CHECK(what.find("not a contest history database") != std::string::npos);
}

TEST_CASE("history: a missing database is made by import only", "[history]") {
    ScratchDir dir("history-missing");
    const std::string what = one_line_error(
        [&] { HistoryDb db(db_target((dir / "none.sqlite").string(), {}), OpenFor::reading); });
    CHECK(what.find("no history database at") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "none.sqlite"));
}

TEST_CASE("history: a schema newer than the binary's is refused", "[history]") {
    ScratchDir dir("history-newer");
    check_newer_schema_refused(db_target((dir / "h.sqlite").string(), {}));
}

TEST_CASE("history: an import that fails half-way leaves nothing of its file", "[history]") {
    ScratchDir dir("history-half");
    const DbTarget target = db_target((dir / "h.sqlite").string(), {});
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    HistoryDb db(target, OpenFor::writing);
    // The database refuses the file's tenth run: its runs, the file, its
    // kernel and its machine all go with it.
    session_of(db) << "CREATE TRIGGER refuse BEFORE INSERT ON runs WHEN "
                      "(SELECT COUNT(*) FROM runs) >= 9 BEGIN SELECT RAISE(ABORT, 'refused'); END";
    const ImportTally refused = import_paths(db, {dir / "in"}, "2026-12-05T00:00:00Z");
    REQUIRE(refused.refused.size() == 1);
    const std::string what = refused.refused.front();
    INFO(what);
    CHECK(refused.added == 0);
    CHECK(what.find("refused") != std::string::npos);
    CHECK(what.find("a.json") != std::string::npos);
    for (const char* table : {"files", "runs", "run_measures", "kernels", "machines"})
        CHECK(count_rows(db, table) == 0);
    session_of(db) << "DROP TRIGGER refuse";
    const ImportTally t = import_paths(db, {dir / "in"}, "2026-12-05T00:00:01Z");
    CHECK(t.added == 1);
    CHECK(count_rows(db, "runs") == 25);
}

TEST_CASE("history: two contests importing into one SQLite file at once", "[history][e2e]") {
    ScratchDir dir("history-two");
    check_two_importers_at_once((dir / "h.sqlite").string(), dir.path());
}

TEST_CASE("history: a corrupt database is one line and exit 2", "[history][e2e]") {
    ScratchDir dir("history-corrupt");
    const fs::path db = dir / "h.sqlite";
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    Outcome o = run_contest_binary(
        {"history", "import", "--db", db.string(), "--", (dir / "in").string()}, dir.path());
    REQUIRE(o.exit_code == 0);
    // Its schema's page overwritten (the header kept: SQLite still opens it).
    {
        std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(100);
        const std::string junk(4000, '\x5a');
        f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
    }
    fs::remove(dir / "h.sqlite-wal");
    fs::remove(dir / "h.sqlite-shm");
    o = run_contest_binary({"history", "--db", db.string()}, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find(db.string()) != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

TEST_CASE("history: a config file sets options, not the action's arguments", "[history][cli]") {
    ScratchDir dir("history-config");
    const fs::path db = dir / "h.sqlite";
    put_example_as(dir / "in" / "a.json", "a", "6.1.1");
    REQUIRE(run_contest_binary(
                {"history", "import", "--db", db.string(), "--", (dir / "in").string()}, dir.path())
                .exit_code == 0);
    // A lab's config names its database: list reads it.
    std::ofstream(dir / "lab.conf") << "db = " << db.string() << "\n";
    Outcome o =
        run_contest_binary({"history", "--config", (dir / "lab.conf").string()}, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.out.find("series") == 0);
    // The words after the action are the command line's alone: a config
    // file's `word` line is no option of it.
    std::ofstream(dir / "lab.conf", std::ios::app) << "word = /etc/passwd\n";
    o = run_contest_binary({"history", "import", "--config", (dir / "lab.conf").string()},
                           dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 2);
    CHECK(o.err.find((dir / "lab.conf").string() + ":2: ") != std::string::npos);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

TEST_CASE("history: contest history import, list and show end to end", "[history][e2e]") {
    ScratchDir dir("history-cli");
    for (auto [label, release, scale] : {std::tuple{"rc", "6.2-rc1", 1.0},
                                         {"final", "6.2", 1.0},
                                         {"old", "6.1.9", 1.0},
                                         {"next", "6.10", 1.2}})
        put_example_as(dir / "results" / label / "r.json", label, release, scale);
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("imported 4 file(s) (100 runs)") != std::string::npos);
    CHECK(fs::exists(dir / "results" / "history.sqlite"));
    o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    CHECK(o.out.find("imported 0 file(s) (0 runs)") != std::string::npos);
    CHECK(o.out.find("4 already in") != std::string::npos);

    o = run_contest_binary({"history", "--measure", "wall_s"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("m1/w1/io_load/wall_s") != std::string::npos);
    CHECK(o.out.find("m1/w1/io_load/user_s") == std::string::npos);
    // With no word: Time's series, and how many others there are, not
    // every measure of every load.
    const std::string time_only = o.out;
    o = run_contest_binary({"history"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.starts_with(time_only));
    CHECK(o.out.find("m1/w1/io_load/user_s") == std::string::npos);
    const std::string others = o.out.substr(time_only.size());
    CHECK_THAT(others, Catch::Matches("[0-9]+ series of other measures \\(the load's work, "
                                      "latency, \\.\\.\\.\\): --all-measures lists them, "
                                      "--measure M one measure's\n"));
    // On asking, every series, Time's first, the others counted before.
    o = run_contest_binary({"history", "--all-measures"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.starts_with(time_only));
    CHECK(o.out.find("m1/w1/io_load/user_s") != std::string::npos);
    const auto lines = static_cast<std::size_t>(std::count(o.out.begin(), o.out.end(), '\n'));
    const auto time_lines =
        static_cast<std::size_t>(std::count(time_only.begin(), time_only.end(), '\n'));
    CHECK(lines - time_lines == std::stoul(others));
    o = run_contest_binary({"history", "--all-measures", "--measure", "wall_s"}, dir.path(),
                           dir.path());
    CHECK(o.exit_code == 2);
    CHECK(o.err == "contest: contest history: --all-measures and --measure: give one\n");

    o = run_contest_binary({"history", "show", "m1/w1/io_load/wall_s"}, dir.path(), dir.path());
    INFO(o.out);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("4 kernels in version order") != std::string::npos);
    // 6.1.9 < 6.2-rc1 < 6.2 < 6.10
    const auto at = [&](const char* s) { return o.out.find(std::string("\n") + s + " "); };
    CHECK(at("6.1.9") < at("6.2-rc1"));
    CHECK(at("6.2-rc1") < at("6.2"));
    CHECK(at("6.2") < at("6.10"));
    CHECK(at("6.10") != std::string::npos);

    for (auto [args, wanted] :
         {std::pair<std::vector<std::string>, const char*>{{"history", "bogus"}, "unknown action"},
          {{"history", "show", "io_load"}, "not a series"},
          {{"history", "show", "m9/w9/io_load/wall_s"}, "no series m9/w9/io_load/wall_s"},
          {{"history", "import"}, "give the result files"},
          {{"history", "--db", "elsewhere.sqlite"}, "no history database at elsewhere.sqlite"}}) {
        o = run_contest_binary(args, dir.path(), dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 2);
        CHECK(o.err.find(wanted) != std::string::npos);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    }
}

TEST_CASE("history: kernel releases in version order", "[history]") {
    CHECK(release_before("6.1.9", "6.2-rc1"));
    CHECK(release_before("6.2-rc1", "6.2-rc2"));
    CHECK(release_before("6.2-rc9", "6.2"));
    CHECK(release_before("6.2", "6.2.1"));
    CHECK(release_before("6.9", "6.10"));
    CHECK(release_before("6.1.0-13-amd64", "6.1.0-27-amd64"));
    CHECK_FALSE(release_before("6.2", "6.2"));
    CHECK_FALSE(release_before("6.10", "6.9"));
}

TEST_CASE("history: a series is named mM/wW/LOAD/MEASURE", "[history]") {
    const auto k = parse_series_key("m3/w12/io_load/latency_cyclic_p99_us");
    REQUIRE(k);
    CHECK(k->machine_id == 3);
    CHECK(k->workload_id == 12);
    CHECK(k->load == "io_load");
    CHECK(k->text() == "m3/w12/io_load/latency_cyclic_p99_us");
    CHECK_FALSE(parse_series_key("m3/w12/io_load"));
    CHECK_FALSE(parse_series_key("3/12/io_load/wall_s"));
}

TEST_CASE("history: a PostgreSQL URI's password is never shown", "[history]") {
    CHECK(without_password("postgresql://lab:s3cret@db.example/contest") ==
          "postgresql://lab@db.example/contest");
    CHECK(without_password("postgresql:///contest?host=/run&password=s3cret&user=x") ==
          "postgresql:///contest?host=/run&user=x");
    const DbTarget t = db_target("postgres://lab:s3cret@h/c", {});
    CHECK(t.kind == DbKind::postgresql);
    CHECK(t.shown.find("s3cret") == std::string::npos);
}

TEST_CASE("history changes: a planted step found, with the commands that look closer",
          "[history][e2e]") {
    ScratchDir dir("history-changes");
    for (int i = 1; i <= 8; ++i)
        put_example_as(dir / "results" / ("k" + std::to_string(i)) / "r.json",
                       "k" + std::to_string(i), "6.1." + std::to_string(i), i <= 4 ? 1.0 : 1.3);
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    o = run_contest_binary({"history", "changes", "m1/w1/io_load/wall_s"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("m1/w1/io_load/wall_s: +30.0%") != std::string::npos);
    CHECK(o.out.find("between 6.1.4 (the last of 4) and 6.1.5 (the first of 4)") !=
          std::string::npos);
    CHECK(o.out.find("    contest compare k4 k5\n") != std::string::npos);
    // Every series of Time moved the same: one change each, at the same kernel.
    o = run_contest_binary({"history", "changes", "--measure", "wall_s"}, dir.path(), dir.path());
    std::size_t lines = 0;
    for (std::size_t at = o.out.find("/wall_s: +30.0%"); at != std::string::npos;
         at = o.out.find("/wall_s: +30.0%", at + 1))
        ++lines;
    CHECK(lines == 5);  // the example's five loads
    // --min-change above it: nothing.
    o = run_contest_binary({"history", "changes", "--min-change", "0.5", "--measure", "wall_s"},
                           dir.path(), dir.path());
    CHECK(o.out.find("no change in 5 series") != std::string::npos);
}

TEST_CASE("history changes: the commands it suggests paste back as their words, --db kept",
          "[history][e2e]") {
    // Labels and a tree path as any host of a shared database may have
    // stored them: each must reach the command as one word, and nothing in
    // it run by the shell it is pasted into.
    ScratchDir dir("history-changes-quoted");
    const std::string before_label = "k4; touch pwned-a", after_label = "k5$(touch pwned-b)\"'!x";
    const std::string tree = (dir / "tree `touch pwned-c`\n\"$HOME\" 'q'; \x1b[31m").string();
    const std::string db = (dir / "lab's db $X.sqlite").string();
    for (int i = 1; i <= 8; ++i) {
        const std::string label = i == 4   ? before_label
                                  : i == 5 ? after_label
                                           : "k" + std::to_string(i);
        const fs::path path = dir / "results" / ("k" + std::to_string(i)) / "r.json";
        put_example_as(path, label, "6.1." + std::to_string(i), i <= 4 ? 1.0 : 1.3);
        nlohmann::json j = nlohmann::json::parse(slurp(path));
        j["config"]["kernel"] = {{"release", "6.1." + std::to_string(i)},
                                 {"build",
                                  {{"tree", tree},
                                   {"ref", "r" + std::to_string(i)},
                                   {"commit", std::string(40, static_cast<char>('0' + i))},
                                   {"key", "k" + std::to_string(i)}}}};
        put_file(path, j.dump(1));
    }
    Outcome o =
        run_contest_binary({"history", "import", "--db", db, "results"}, dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    o = run_contest_binary({"history", "changes", "--db", db, "--workdir", (dir / "work").string(),
                            "m1/w1/io_load/wall_s"},
                           dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // Nothing a terminal obeys: the escape in the tree path is spelled out.
    CHECK(o.out.find('\x1b') == std::string::npos);
    const auto command = [&](const std::string& start, const std::string& end) {
        const std::size_t at = o.out.find("    " + start);
        REQUIRE(at != std::string::npos);
        const std::size_t stop = o.out.find(end + "\n", at);
        REQUIRE(stop != std::string::npos);
        return o.out.substr(at, stop + end.size() - at);
    };
    // The shell's own words, each in brackets: a word holding a newline or
    // a space is still one.
    const auto words_of = [&](const std::string& line) {
        return shell_output("cd '" + dir.path().string() + "' && set -- " + line +
                            "\nprintf '[%s]' \"$@\"");
    };
    const auto bracketed = [](const std::vector<std::string>& words) {
        return join(words, "", [](const std::string& w) { return "[" + w + "]"; });
    };
    CHECK(words_of(command("contest compare", "")) ==
          bracketed({"contest", "compare", before_label, after_label}));
    CHECK(words_of(command("contest bisect", "LOADS...")) ==
          bracketed({"contest", "bisect", "--good", tree + "@" + std::string(40, '4'), "--bad",
                     tree + "@" + std::string(40, '5'), "--", "--db", db, "LOADS..."}));
    for (const char* made : {"pwned-a", "pwned-b", "pwned-c"}) CHECK_FALSE(fs::exists(dir / made));
}

TEST_CASE("history changes: the committed examples imported raise no alarm", "[history][e2e]") {
    ScratchDir dir("history-examples");
    Outcome o = run_contest_binary(
        {"history", "import", "--db", (dir / "h.sqlite").string(), examples_folder().string()},
        dir.path());
    REQUIRE(o.exit_code == 0);
    o = run_contest_binary({"history", "changes", "--db", (dir / "h.sqlite").string()}, dir.path());
    INFO(o.out << o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.out.rfind("no change in ", 0) == 0);
    // The A/A series (results/examples/aa): this machine's kernel, the same
    // run twelve times at different moments, each file a point.
    long long machine = 0, workload = 0;
    {
        HistoryDb db(db_target((dir / "h.sqlite").string(), dir.path()), OpenFor::reading);
        session_of(db) << "SELECT machine_id, workload_id FROM files WHERE label = 'aa'",
            soci::into(machine), soci::into(workload);
    }
    const std::string aa_series =
        "m" + std::to_string(machine) + "/w" + std::to_string(workload) + "/no_load/wall_s";
    o = run_contest_binary(
        {"history", "show", "--db", (dir / "h.sqlite").string(), "--points", "file", aa_series},
        dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("12 files in"));
    // Each file a point: the A/A series' false alarms within the rate the
    // defaults state (at most 0.05 a series, docs/history.md), counted over
    // the A/A machine's series.
    o = run_contest_binary(
        {"history", "list", "--all-measures", "--db", (dir / "h.sqlite").string()}, dir.path());
    REQUIRE(o.exit_code == 0);
    const std::string aa_prefix =
        "m" + std::to_string(machine) + "/w" + std::to_string(workload) + "/";
    std::size_t aa_count = 0;
    for (const auto& line : split_lines(o.out)) aa_count += line.rfind(aa_prefix, 0) == 0;
    REQUIRE(aa_count >= 100);
    o = run_contest_binary(
        {"history", "changes", "--db", (dir / "h.sqlite").string(), "--points", "file"},
        dir.path());
    INFO(o.out << o.err);
    CHECK(o.exit_code == 0);
    std::size_t alarms = 0;
    for (const auto& line : split_lines(o.out))
        alarms += line.find("[untriaged] " + aa_prefix) != std::string::npos;
    CHECK(static_cast<double>(alarms) <= 0.05 * static_cast<double>(aa_count));
}

TEST_CASE("history: builds of one tree in its commits' order, read from the tree",
          "[history][e2e]") {
    ScratchDir dir("history-commits");
    const fs::path tree = dir / "linux";
    fs::create_directories(tree);
    shell_output("cd '" + tree.string() + "' && git init -q -b main");
    // Four commits, their releases in the other order: commit order is not
    // version order, and a series says which it used.
    const std::vector<std::string> releases = {"6.4", "6.3", "6.2", "6.1"};
    std::vector<std::string> commits;
    for (std::size_t i = 0; i < releases.size(); ++i)
        commits.push_back(shell_output("cd '" + tree.string() +
                                       "' && git -c user.name=t -c user.email=t@t commit -q "
                                       "--allow-empty -m c" +
                                       std::to_string(i) + " && git rev-parse HEAD"));
    for (std::size_t i = 0; i < releases.size(); ++i) {
        const std::string label = "c" + std::to_string(i);
        const fs::path path = dir / "results" / label / "r.json";
        put_example_as(path, label, releases[i]);
        nlohmann::json j = nlohmann::json::parse(slurp(path));
        j["config"]["kernel"] = {{"release", releases[i]},
                                 {"build",
                                  {{"tree", tree.string()},
                                   {"ref", label},
                                   {"commit", trim_blanks(commits[i])},
                                   {"key", "k" + std::to_string(i)}}}};
        put_file(path, j.dump(1));
    }
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const std::vector<std::string> show = {"history", "show", "--workdir", (dir / "work").string(),
                                           "m1/w1/io_load/wall_s"};
    o = run_contest_binary(show, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("4 kernels in commit order"));
    const auto at = [&](const std::string& release) { return o.out.find("\n" + release + " @"); };
    CHECK(at("6.4") < at("6.3"));
    CHECK(at("6.3") < at("6.2"));
    CHECK(at("6.2") < at("6.1"));
    CHECK(at("6.1") != std::string::npos);
    // The tree gone: version order, said.
    fs::rename(tree, dir / "elsewhere");
    o = run_contest_binary(show, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("4 kernels in version order"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("history: the KCIDB export from the database is the export from the files",
          "[history][kcidb][e2e]") {
    ScratchDir dir("history-kcidb");
    const fs::path fixtures = fs::path(CONTEST_TEST_DATA) / "results" / "kernels";
    const std::string db = (dir / "lab.sqlite").string();
    Outcome o =
        run_contest_binary({"history", "import", "--db", db, fixtures.string()}, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const std::vector<std::string> labels = {"6.1.0-hz100", "6.1.0-hz1000", "6.1.0-rt"};
    std::vector<std::string> from_files = {
        "export", "--origin", "lab", "--baseline", "6.1.0-hz100", "--results", fixtures.string()};
    std::vector<std::string> from_db = {"export",      "--origin", "lab", "--baseline",
                                        "6.1.0-hz100", "--db",     db};
    from_files.insert(from_files.end(), labels.begin(), labels.end());
    from_db.insert(from_db.end(), labels.begin(), labels.end());
    const Outcome files = run_contest_binary(from_files, dir.path());
    const Outcome stored = run_contest_binary(from_db, dir.path());
    INFO(stored.err);
    REQUIRE(files.exit_code == 0);
    REQUIRE(stored.exit_code == 0);
    CHECK(stored.out.size() > 1000);
    CHECK(stored.out == files.out);
    // A label the database does not have: one line naming the ones it has.
    o = run_contest_binary({"export", "--origin", "lab", "--db", db, "6.2"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("'6.2' is not a label in") && Catch::Contains("6.1.0-rt"));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}

TEST_CASE(
    "history: a file imported before the database kept files gets its content when "
    "imported again",
    "[history]") {
    ScratchDir dir("history-content");
    const DbTarget target = db_target("", dir / "results");
    {
        HistoryDb db(target, OpenFor::writing);
        import_paths(db, {small_example()}, "2026-12-05T00:00:00Z");
        // As schema 2 left it.
        session_of(db) << "UPDATE files SET content = ''";
        CHECK_THROWS_WITH(stored_files(db, {read_result_file(small_example()).label}),
                          Catch::Contains("import it again"));
    }
    HistoryDb db(target, OpenFor::writing);
    const ImportTally t = import_paths(db, {small_example()}, "2026-12-05T00:00:01Z");
    CHECK(t.already_in == 1);
    const auto files = stored_files(db, {read_result_file(small_example()).label});
    REQUIRE(files.size() == 1);
    CHECK(files.front().runs.size() == read_result_file(small_example()).runs.size());
}

TEST_CASE("history: a guest's run keeps its boot and its place in the boot", "[history]") {
    ScratchDir dir("history-boots");
    ResultFile f = read_result_file(small_example());
    // As --runs-per-boot 5 numbers them: boot b's k-th run is round (b - 1) * 5 + k.
    for (std::size_t i = 0; i < f.runs.size(); ++i) {
        f.runs[i].boot = static_cast<int>(i / 5) + 1;
        f.runs[i].run_in_boot = static_cast<int>(i % 5) + 1;
    }
    put_file(dir / "in" / "r.json", to_json(f).dump(1));
    HistoryDb db(db_target("", dir / "results"), OpenFor::writing);
    CHECK(db.schema_version() >= 4);
    import_paths(db, {dir / "in"}, "2026-12-06T00:00:00Z");
    soci::rowset<soci::row> rows =
        (session_of(db).prepare << "SELECT run_index, boot, run_in_boot FROM runs ORDER BY id");
    std::size_t i = 0;
    for (const soci::row& row : rows) {
        REQUIRE(i < f.runs.size());
        INFO("run " << i);
        CHECK(row.get<int>(0) == f.runs[i].index);
        CHECK(row.get<int>(1) == f.runs[i].boot);
        CHECK(row.get<int>(2) == f.runs[i].run_in_boot);
        ++i;
    }
    CHECK(i == f.runs.size());
}
