// The results database as the recorder's second sink: every save of a
// label's file goes to the sinks after the file, the database keeps the file
// as it last stood (no run twice), and `contest run` fills it by default.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/history/history_sink.h"
#include "contest/history/import.h"
#include "contest/history/owed_saves.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/record/run_sinks.h"
#include "contest/sys/sha256.h"
#include "history_support.h"
#include "test_helpers.h"

namespace fs = std::filesystem;
using namespace contest;
using namespace contest::history;

namespace {

// A sink that keeps what it was given.
struct RecordingSink : ResultSink {
    struct Given {
        std::size_t runs;
        fs::path path;
        std::string text;
    };
    std::vector<Given> given;
    void saved(const ResultFile& file, const fs::path& path,
               const std::string& text) noexcept override {
        given.push_back({file.runs.size(), path, text});
    }
};

// A SQLite database that cannot be reached for a while: its folder is a
// file until the test removes it (the returned path).
fs::path database_away(const test::ScratchDir& dir) {
    const fs::path away = dir / "away";
    test::put_file(away, "a file where the database's folder goes\n");
    return away;
}

ResultFile example_with_runs(std::size_t runs) {
    ResultFile f = read_result_file(test::small_example());
    f.runs.resize(runs);
    return f;
}

}  // namespace

TEST_CASE("history sink: each save reaches the sinks after the file, with the bytes written",
          "[history][sink]") {
    test::ScratchDir dir("sink");
    auto sink = std::make_shared<RecordingSink>();
    const fs::path path = dir / "label" / "file.json";
    fs::create_directories(path.parent_path());
    const ResultWriter writer(path, {sink});
    writer.save(example_with_runs(1));
    CHECK(sink->given.size() == 1);
    writer.save(example_with_runs(3));
    REQUIRE(sink->given.size() == 2);
    CHECK(sink->given[0].runs == 1);
    CHECK(sink->given[1].runs == 3);
    CHECK(sink->given[1].path == path);
    // What the sink was given is what the file holds.
    CHECK(sink->given[1].text == test::slurp(path));
}

TEST_CASE(
    "history sink: the database holds the file as it last stood, and an import of it adds "
    "nothing",
    "[history][sink]") {
    test::ScratchDir dir("sink-db");
    const DbTarget target = db_target("", dir / "results");
    const fs::path path = dir / "results" / "label" / "file.json";
    fs::create_directories(path.parent_path());
    const ResultWriter writer(path, {std::make_shared<HistorySink>(target, dir / "results")});
    for (std::size_t runs : {1, 2, 7}) writer.save(example_with_runs(runs));
    {
        HistoryDb db(target, OpenFor::reading);
        CHECK(test::count_rows(db, "files") == 1);
        CHECK(test::count_rows(db, "runs") == 7);
    }
    HistoryDb db(target, OpenFor::writing);
    const ImportTally t = import_paths(db, {dir / "results"}, "2026-12-05T00:00:00Z");
    CHECK(t.added == 0);
    CHECK(t.already_in == 1);
    // A file resumed while the database was away, then imported: its
    // earlier state is replaced, not counted beside it.
    test::put_file(path, to_json(example_with_runs(9)).dump(1));
    const ImportTally again = import_paths(db, {dir / "results"}, "2026-12-05T00:00:01Z");
    CHECK(again.added == 1);
    CHECK(test::count_rows(db, "files") == 1);
    CHECK(test::count_rows(db, "runs") == 9);
}

TEST_CASE("run sinks: the results database one entry of the run's sinks, none under --no-history",
          "[history][sink]") {
    test::ScratchDir dir("sink-list");
    RunConfig config;
    config.results_dir = dir / "results";
    // By default the one entry, the database beside the results.
    REQUIRE(config.sinks.size() == 1);
    CHECK(run_sink_names(config.sinks, config.results_dir) ==
          std::vector<std::string>{"the results database " +
                                   (dir / "results" / "history.sqlite").string()});
    // An entry with --db's file: each save goes there, and nowhere else.
    config.sinks = {{SinkKind::results_database, (dir / "lab.sqlite").string()}};
    const fs::path path = dir / "results" / "label" / "file.json";
    fs::create_directories(path.parent_path());
    ResultWriter(path, run_result_sinks(config.sinks, config.results_dir)).save(example_with_runs(3));
    {
        HistoryDb db(db_target((dir / "lab.sqlite").string(), dir.path()), OpenFor::reading);
        CHECK(test::count_rows(db, "runs") == 3);
    }
    CHECK_FALSE(fs::exists(dir / "results" / "history.sqlite"));
    // --no-history: no entry, no sink, no database.
    config.sinks.clear();
    CHECK(run_result_sinks(config.sinks, config.results_dir).empty());
    CHECK(run_sink_names(config.sinks, config.results_dir).empty());
}

TEST_CASE(
    "history sink: a database that cannot be written is one warning, and the runs are in "
    "their file",
    "[history][sink]") {
    test::ScratchDir dir("sink-bad");
    test::put_file(dir / "not-a-db", "these are not the bytes of a database\n");
    const fs::path path = dir / "label" / "file.json";
    fs::create_directories(path.parent_path());
    const ResultWriter writer(
        path, {std::make_shared<HistorySink>(db_target((dir / "not-a-db").string(), dir.path()),
                                             dir.path())});
    writer.save(example_with_runs(1));
    writer.save(example_with_runs(2));  // owed again: no second warning, no throw
    CHECK(read_result_file(path).runs.size() == 2);
    CHECK(test::slurp(dir / "not-a-db") == "these are not the bytes of a database\n");
}

TEST_CASE(
    "history sink: a save the database could not take is owed, and the next save that reaches "
    "it brings in every owed file",
    "[history][sink][owed]") {
    test::ScratchDir dir("sink-owed");
    const fs::path away = database_away(dir);
    const DbTarget target = db_target((away / "lab.sqlite").string(), dir.path());
    const fs::path results = dir / "results";
    const fs::path first = results / "a" / "file.json", second = results / "b" / "file.json";
    fs::create_directories(first.parent_path());
    fs::create_directories(second.parent_path());
    {
        const ResultWriter writer(first, {std::make_shared<HistorySink>(target, results)});
        writer.save(example_with_runs(1));
        writer.save(example_with_runs(4));
        const auto owed = owed_saves(results, target.shown);
        REQUIRE(owed.size() == 1);  // one entry a file, as it last stood
        CHECK(owed[0].file == fs::absolute(first).lexically_normal().string());
        CHECK(owed[0].sha256 == sha256_hex(test::slurp(first)));
    }
    fs::remove(away);
    // Another run's first save reaches the database: the first run's file
    // comes in before it, with every run it holds.
    const ResultWriter writer(second, {std::make_shared<HistorySink>(target, results)});
    ResultFile another = example_with_runs(2);
    another.label = "another-run";
    writer.save(another);
    CHECK(owed_saves(results).empty());
    CHECK_FALSE(fs::exists(results / kOwedFile));
    HistoryDb db(target, OpenFor::reading);
    CHECK(test::count_rows(db, "files") == 2);
    CHECK(test::count_rows(db, "runs") == 6);
}

TEST_CASE("owed saves: the list is read as untrusted, a bad entry left out", "[history][owed]") {
    const std::string good =
        R"({"database":"/d/h.sqlite","file":"/r/a.json","sha256":"ab","since":"t"})";
    std::size_t dropped = 0;
    auto saves = parse_owed_saves(
        R"({"schema":1,"owed":[)" + good +
            R"(,{"database":"/d","file":"relative.json","sha256":"ab","since":"t"},)"
            R"({"database":"/d","file":"/r/\u001b[2J.json","sha256":"ab","since":"t"},)"
            R"({"database":7,"file":"/r/b.json","sha256":"ab","since":"t"},)"
            R"(["not","an","object"]]})",
        &dropped);
    REQUIRE(saves.size() == 1);
    CHECK(saves[0].file == "/r/a.json");
    CHECK(dropped == 4);
    CHECK(parse_owed_saves("not json", &dropped).empty());
    CHECK(dropped == 1);
    CHECK(parse_owed_saves(R"({"schema":2,"owed":[)" + good + "]}").empty());
    // What is written reads back the same.
    CHECK(owed_saves_text(parse_owed_saves(owed_saves_text(saves))) == owed_saves_text(saves));
}

TEST_CASE(
    "contest run: saves the database could not take are owed, said at the run's end, and "
    "contest history sync brings them in",
    "[history][sink][owed][e2e]") {
    test::ScratchDir dir("sink-sync");
    const fs::path away = database_away(dir);
    const std::string db = (away / "lab.sqlite").string();
    const fs::path results = dir / "results";
    auto o = test::run_contest_binary(test::quick_run(dir.path(), "results", db, "owed-kernel"),
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("owed") && Catch::Contains("1 save(s) owed"));
    REQUIRE(fs::exists(results / kOwedFile));
    const std::vector<std::string> sync = {"history", "sync",      "--db",
                                           db,        "--results", results.string()};
    // Still away (here its folder is a file: the user's to mend, exit 2; a
    // server away is exit 3, tested on PostgreSQL): the sync fails, and the
    // list owes on.
    o = test::run_contest_binary(sync, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(fs::exists(results / kOwedFile));
    fs::remove(away);
    o = test::run_contest_binary(sync, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("brought 1 owed file(s) (2 runs)") &&
                          Catch::Contains("0 still owed"));
    CHECK_FALSE(fs::exists(results / kOwedFile));
    {
        HistoryDb lab(db_target(db, dir.path()), OpenFor::reading);
        CHECK(test::count_rows(lab, "runs") == 2);
    }
    // Nothing owed: a second sync brings nothing, and says so.
    o = test::run_contest_binary(sync, dir.path());
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("brought 0 owed file(s)"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest run: every run in the results database as well as its file, unless "
    "--no-history",
    "[history][sink][e2e]") {
    test::ScratchDir dir("sink-run");
    auto run = [&](const std::string& results, std::vector<std::string> more) {
        std::vector<std::string> args = test::quick_run(dir.path(), results, "", "db-kernel");
        args.insert(args.end(), more.begin(), more.end());
        return test::run_contest_binary(args, dir.path());
    };
    auto o = run("results", {});
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());
    {
        HistoryDb db(db_target("", dir / "results"), OpenFor::reading);
        CHECK(test::count_rows(db, "files") == 1);
        CHECK(test::count_rows(db, "runs") == 2);
    }
    // The finished file is the one the database holds.
    o = test::run_contest_binary(
        {"history", "import", "--results", (dir / "results").string(), (dir / "results").string()},
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains("imported 0 file(s)") && Catch::Contains("1 already in"));

    o = run("quiet-results", {"--no-history"});
    REQUIRE(o.exit_code == 0);
    CHECK(test::result_files(dir / "quiet-results").size() == 1);
    CHECK_FALSE(fs::exists(dir / "quiet-results" / kDefaultDbFile));

    // --db elsewhere: the runs go there.
    o = run("other-results", {"--db", (dir / "lab.sqlite").string()});
    REQUIRE(o.exit_code == 0);
    CHECK_FALSE(fs::exists(dir / "other-results" / kDefaultDbFile));
    HistoryDb lab(db_target((dir / "lab.sqlite").string(), dir.path()), OpenFor::reading);
    CHECK(test::count_rows(lab, "runs") == 2);

    o = run("r", {"--db", "x.sqlite", "--no-history"});
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--no-history and --db"));
}

TEST_CASE("contest run: a results database that is not one is a warning, the run goes on",
          "[history][sink][e2e]") {
    test::ScratchDir dir("sink-run-bad");
    test::put_file(dir / "results" / kDefaultDbFile, "not a database\n");
    const auto o = test::run_contest_binary(
        test::quick_run(dir.path(), "results", "", "db-kernel", "1"), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.err, Catch::Contains("warning") && Catch::Contains(kDefaultDbFile) &&
                          Catch::Contains("history sync"));
    CHECK(test::result_files(dir / "results").size() == 1);
    CHECK(test::slurp(dir / "results" / kDefaultDbFile) == "not a database\n");
    CHECK(test::leftover_processes().empty());
}
