// The results database's schema between contests of different versions
// (contest/history/schema.h; docs/history.md, "Schema"): a reader never
// changes it and reads an older one as it is; a writer of an older version
// goes on with a newer database whose newer migrations only add, and is
// refused in one line by one that changes what is there.
#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/schema.h"
#include "history_support.h"

using namespace contest;
using namespace contest::history;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

// Whether `table` has `column`, read without changing anything.
bool sqlite_has_column(HistoryDb& db, const std::string& table, const std::string& column) {
    int n = 0;
    session_of(db) << "SELECT COUNT(*) FROM pragma_table_info('" + table + "') WHERE name = :c",
        soci::use(column), soci::into(n);
    return n > 0;
}

}  // namespace

TEST_CASE(
    "history: a database of an older schema is read by list, show, changes and page, and "
    "left at its version",
    "[history][e2e]") {
    ScratchDir dir("history-older");
    for (int i = 1; i <= 8; ++i)
        put_example_as(dir / "results" / ("k" + std::to_string(i)) / "r.json",
                       "k" + std::to_string(i), "6.1." + std::to_string(i), i <= 4 ? 1.0 : 1.3);
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    const DbTarget target = db_target("", dir / "results");
    // Version 3 has no runs.boot; version 2 no files.content either.
    for (const int version : {3, 2}) {
        INFO("schema version " << version);
        {
            HistoryDb db(target, OpenFor::writing);
            downgrade_schema(db, version);
        }
        o = run_contest_binary({"history"}, dir.path(), dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 0);
        CHECK_THAT(o.out, Catch::Contains("m1/w1/io_load/wall_s"));
        o = run_contest_binary({"history", "show", "m1/w1/io_load/wall_s"}, dir.path(), dir.path());
        CHECK(o.exit_code == 0);
        CHECK_THAT(o.out, Catch::Contains("8 kernels in version order"));
        o = run_contest_binary({"history", "changes", "m1/w1/io_load/wall_s"}, dir.path(),
                               dir.path());
        CHECK(o.exit_code == 0);
        CHECK_THAT(o.out, Catch::Contains("m1/w1/io_load/wall_s: +30.0%"));
        o = run_contest_binary(
            {"history", "page", "--out", (dir / "page.html").string(), "m1/w1/io_load/wall_s"},
            dir.path(), dir.path());
        CHECK(o.exit_code == 0);
        CHECK(fs::exists(dir / "page.html"));
        // The files' content, as the export reads it: version 3 has it, a
        // version 2 database says how to get it, in one line.
        o = run_contest_binary({"export", "--origin", "lab", "--db",
                                (dir / "results" / kDefaultDbFile).string(), "k1"},
                               dir.path());
        if (version >= 3) {
            CHECK(o.exit_code == 0);
        } else {
            CHECK(o.exit_code == 2);
            CHECK_THAT(o.err, Catch::Contains("import it again"));
            CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        }
        HistoryDb db(target, OpenFor::reading);
        CHECK(db.schema_version() == version);
        CHECK(schema_version_of(db) == version);
        CHECK_FALSE(sqlite_has_column(db, "runs", "boot"));
        CHECK(sqlite_has_column(db, "files", "content") == (version >= 3));
    }
    // A writer brings it to this contest's version.
    o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    CHECK(o.exit_code == 0);
    HistoryDb db(target, OpenFor::reading);
    CHECK(schema_version_of(db) == current_schema_version());
    CHECK(sqlite_has_column(db, "runs", "boot"));
}

TEST_CASE(
    "history: a database one migration newer that only adds is written on, one that forbids "
    "older writers is refused in one line",
    "[history][e2e]") {
    ScratchDir dir("history-newer-writer");
    const std::string file = (dir / "h.sqlite").string();
    for (const char* label : {"a", "b", "c"})
        put_example_as(dir / label / "r.json", label, "6.1.1");
    const auto import_label = [&](const char* label) {
        return run_contest_binary({"history", "import", "--db", file, (dir / label).string()},
                                  dir.path());
    };
    const int known = current_schema_version();
    {
        // Made at this contest's version, as the binary makes it.
        HistoryDb db(db_target(file, {}), OpenFor::writing);
        REQUIRE(db.schema_version() == known);
    }
    REQUIRE(import_label("a").exit_code == 0);
    // A newer contest's migration: a column with a default, as version 4's
    // were, which a contest of this version neither selects nor inserts.
    // (Opened for reading: as it is, whichever version it is at.)
    const auto newer = [&](int version, int oldest_reader, int oldest_writer) {
        HistoryDb db(db_target(file, {}), OpenFor::reading);
        if (version == known + 1)
            session_of(db) << "ALTER TABLE runs ADD COLUMN later INTEGER NOT NULL DEFAULT 0";
        session_of(db)
            << "INSERT INTO schema_version (version, oldest_reader, oldest_writer) VALUES "
               "(:v, :r, :w)",
            soci::use(version), soci::use(oldest_reader), soci::use(oldest_writer);
    };
    newer(known + 1, 1, 1);
    Outcome o = import_label("b");
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("imported 1 file(s) (25 runs)"));
    o = run_contest_binary({"history", "--db", file}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("m1/w1/io_load/wall_s"));
    {
        HistoryDb db(db_target(file, {}), OpenFor::reading);
        CHECK(schema_version_of(db) == known + 1);
        CHECK(count_rows(db, "runs") == 50);
    }
    // A migration that older writers may not follow: refused, named, one
    // line; readers go on.
    newer(known + 2, 1, known + 2);
    o = import_label("c");
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("version " + std::to_string(known + 2)) &&
                          Catch::Contains("newer") && Catch::Contains(file));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    o = run_contest_binary({"history", "--db", file}, dir.path());
    CHECK(o.exit_code == 0);
    CHECK(run_count(file, dir.path(), "c").files == 0);
    // And one older readers may not read.
    newer(known + 3, known + 3, known + 3);
    o = run_contest_binary({"history", "--db", file}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("version " + std::to_string(known + 3)));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
}
