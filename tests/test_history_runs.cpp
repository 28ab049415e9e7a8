// A run in the results database on SQLite (contest/history/import.h): one
// run wherever its files lie and however many saves of it are imported,
// two importers of the same files at once, and a file the database refuses
// skipped with the others imported. The same checks run on PostgreSQL
// (test_history_postgresql.cpp).
#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "history_support.h"

using namespace contest;
using namespace contest::test;

TEST_CASE(
    "history: a run saved at two paths counts once, and an older save never replaces the "
    "finished file",
    "[history][e2e]") {
    ScratchDir dir("history-one-run");
    check_a_run_counted_once((dir / "h.sqlite").string(), dir.path());
}

TEST_CASE("history: two contests importing the same files into one SQLite file at once",
          "[history][e2e]") {
    ScratchDir dir("history-same-files");
    check_two_importers_of_the_same_files((dir / "h.sqlite").string(), dir.path());
}

TEST_CASE("history: a file the database refuses is skipped, the others imported, exit 1",
          "[history][e2e]") {
    ScratchDir dir("history-refused");
    check_a_refused_file_skipped((dir / "h.sqlite").string(), dir.path(), [](auto& h) {
        session_of(h) << "CREATE TRIGGER refuse BEFORE INSERT ON files WHEN NEW.label = 'bad' "
                         "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END";
    });
}
