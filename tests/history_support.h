#pragma once
// Shared by the history's tests on SQLite and on PostgreSQL: result files
// made from a committed example (its label, kernel and times set), the
// counts of the database's tables, and the checks both databases pass.
#include <soci/soci.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

namespace contest::test {

// The smallest committed example: 25 runs over five loads, no --kernel.
inline std::filesystem::path small_example() {
    return std::filesystem::path(CONTEST_SOURCE_DIR) /
           "results/examples/6.18.44-fc-v657/2026-11-30T044314Z.json";
}

inline std::filesystem::path examples_folder() {
    return std::filesystem::path(CONTEST_SOURCE_DIR) / "results/examples";
}

// The small example as kernel `release` under `label`, its runs' times
// scaled by `scale` (each load's own), written to path.
inline void put_example_as(const std::filesystem::path& path, const std::string& label,
                           const std::string& release, double scale = 1.0) {
    ResultFile f = read_result_file(small_example());
    f.label = label;
    f.system["kernel_release"] = release;
    f.system["kernel_version"] = "#1 SMP " + release;
    for (auto& r : f.runs) r.wall_s *= scale;
    put_file(path, to_json(f).dump(1));
}

// A quick contest run (the synthetic workload) of `kernel`, `runs` runs under
// no_load, results into dir/results, saving into db ("": the default database).
inline std::vector<std::string> quick_run(const std::filesystem::path& dir,
                                          const std::string& results, const std::string& db,
                                          const std::string& kernel = "lab-kernel",
                                          const std::string& runs = "2") {
    std::vector<std::string> words = {"run",
                                      "-k",
                                      kernel,
                                      "-n",
                                      runs,
                                      "-w",
                                      "synthetic",
                                      "--synthetic-size",
                                      "4",
                                      "--warmup",
                                      "0.2",
                                      "--workdir",
                                      (dir / "work").string(),
                                      "--results",
                                      (dir / results).string(),
                                      "--quiet"};
    if (!db.empty()) words.insert(words.end(), {"--db", db});
    words.push_back("no_load");
    return words;
}

inline long long count_rows(history::HistoryDb& db, const std::string& table) {
    long long n = 0;
    session_of(db) << "SELECT COUNT(*) FROM " + table, soci::into(n);
    return n;
}

inline std::size_t json_files_under(const std::filesystem::path& dir) {
    return result_files(dir).size();
}

// Every committed example in, then again: the second import adds nothing,
// and a copy of one file under another name is known by its bytes.
inline void check_import_is_idempotent(const history::DbTarget& target,
                                       const std::filesystem::path& scratch) {
    using namespace history;
    const std::size_t files = json_files_under(examples_folder());
    REQUIRE(files >= 8);
    long long runs = 0, measures = 0, percentiles = 0;
    {
        HistoryDb db(target, OpenFor::writing);
        const ImportTally t = import_paths(db, {examples_folder()}, "2026-12-05T00:00:00Z");
        CHECK(t.skipped.empty());
        CHECK(t.added == static_cast<int>(files));
        CHECK(t.already_in == 0);
        runs = count_rows(db, "runs");
        measures = count_rows(db, "run_measures");
        percentiles = count_rows(db, "probe_percentiles");
        CHECK(runs == t.runs);
        CHECK(count_rows(db, "files") == static_cast<long long>(files));
        // Every run has its wall time, and the latency examples their probes.
        CHECK(measures > runs);
        CHECK(percentiles > 0);
    }
    put_file(scratch / "copy" / "again.json", slurp(small_example()));
    HistoryDb db(target, OpenFor::writing);
    const ImportTally t =
        import_paths(db, {examples_folder(), scratch / "copy"}, "2026-12-05T00:00:01Z");
    CHECK(t.added == 0);
    CHECK(t.already_in == static_cast<int>(files) + 1);
    CHECK(count_rows(db, "files") == static_cast<long long>(files));
    CHECK(count_rows(db, "runs") == runs);
    CHECK(count_rows(db, "run_measures") == measures);
    CHECK(count_rows(db, "probe_percentiles") == percentiles);
}

// A database at a schema version above the binary's: refused with one line
// naming both versions, and left as it was.
inline void check_newer_schema_refused(const history::DbTarget& target) {
    using namespace history;
    {
        HistoryDb db(target, OpenFor::writing);
        session_of(db) << "INSERT INTO schema_version (version) VALUES (99)";
    }
    try {
        HistoryDb db(target, OpenFor::reading);
        FAIL("a schema at version 99 was opened");
    } catch (const UsageError& e) {
        const std::string what = e.what();
        CHECK(what.find("version 99") != std::string::npos);
        CHECK(what.find("newer") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
}

// Two `contest history import` at once into one database, each of 24 files
// of which 8 are the other's too: both succeed, and every file is in once.
inline void check_two_importers_at_once(const std::string& db, const std::filesystem::path& dir) {
    for (int i = 0; i < 40; ++i) {
        const std::string name = "k" + std::to_string(i);
        const std::string folder = i < 16 ? "a" : i < 24 ? "both" : "b";
        put_example_as(dir / folder / name / "r.json", name, "6.1." + std::to_string(i));
    }
    std::filesystem::create_directories(dir / "out1");
    std::filesystem::create_directories(dir / "out2");
    const pid_t one = start_contest(
        {"history", "import", "--db", db, (dir / "a").string(), (dir / "both").string()},
        dir / "out1");
    const pid_t two = start_contest(
        {"history", "import", "--db", db, (dir / "both").string(), (dir / "b").string()},
        dir / "out2");
    const Outcome a = finish_contest(one, dir / "out1");
    const Outcome b = finish_contest(two, dir / "out2");
    INFO(a.err << b.err);
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    history::HistoryDb h(history::db_target(db, dir), history::OpenFor::reading);
    CHECK(count_rows(h, "files") == 40);
    CHECK(count_rows(h, "runs") == 40 * 25);
    CHECK(count_rows(h, "kernels") == 40);
    CHECK(count_rows(h, "machines") == 1);
}

// The database as a contest of schema `version` left it: what the later
// migrations added taken away again (SQLite since 3.35 and PostgreSQL drop
// columns alike), with their rows of schema_version. A migration after 6
// needs its own line here.
inline void downgrade_schema(history::HistoryDb& db, int version) {
    REQUIRE(db.schema_version() <= 6);
    const std::vector<std::pair<int, std::vector<const char*>>> undo = {
        {6, {"DROP TABLE change_mails", "DROP TABLE change_triage", "DROP TABLE changes"}},
        {5,
         {"DROP INDEX files_by_run", "ALTER TABLE schema_version DROP COLUMN oldest_writer",
          "ALTER TABLE schema_version DROP COLUMN oldest_reader"}},
        {4, {"ALTER TABLE runs DROP COLUMN run_in_boot", "ALTER TABLE runs DROP COLUMN boot"}},
        {3, {"DROP INDEX files_by_label", "ALTER TABLE files DROP COLUMN content"}},
    };
    for (const auto& [applied, statements] : undo)
        if (applied > version && applied <= db.schema_version())
            for (const char* statement : statements) session_of(db) << statement;
    session_of(db) << "DELETE FROM schema_version WHERE version > :v", soci::use(version);
}

inline int schema_version_of(history::HistoryDb& db) {
    int v = 0;
    session_of(db) << "SELECT MAX(version) FROM schema_version", soci::into(v);
    return v;
}

// Two `contest history import` of the same 60 files, in the same order, at
// once: each file's import races the other's (on PostgreSQL one importer's
// removal of the file's earlier saves met the other's commit half-way, a
// foreign-key violation). One kernel for all, so that neither waits on the
// other's new kernel row and their transactions overlap. Both succeed, and
// every file is in once.
inline void check_two_importers_of_the_same_files(const std::string& db,
                                                  const std::filesystem::path& dir) {
    constexpr int kFiles = 60;
    for (int i = 0; i < kFiles; ++i)
        put_example_as(dir / "same" / ("s" + std::to_string(i)) / "r.json", "s" + std::to_string(i),
                       "6.2.0");
    std::vector<pid_t> importers;
    for (const char* out : {"same-out1", "same-out2"}) {
        std::filesystem::create_directories(dir / out);
        importers.push_back(
            start_contest({"history", "import", "--db", db, (dir / "same").string()}, dir / out));
    }
    const Outcome a = finish_contest(importers[0], dir / "same-out1");
    const Outcome b = finish_contest(importers[1], dir / "same-out2");
    INFO(a.err << b.err);
    CHECK(a.exit_code == 0);
    CHECK(b.exit_code == 0);
    // Between them, every file imported once and found in once.
    CHECK_THAT(a.out + b.out, Catch::Contains("file(s)"));
    history::HistoryDb h(history::db_target(db, dir), history::OpenFor::reading);
    long long files = 0;
    session_of(h) << "SELECT COUNT(*) FROM files WHERE path LIKE '%/same/%'", soci::into(files);
    CHECK(files == kFiles);
    long long runs = 0;
    session_of(h)
        << "SELECT COUNT(*) FROM runs r JOIN files f ON f.id = r.file_id WHERE f.path LIKE "
           "'%/same/%'",
        soci::into(runs);
    CHECK(runs == kFiles * 25);
}

// The small example under `label` with its first `runs` runs, as its run's
// file stood after that many (incomplete, no end, when fewer than all).
inline std::string example_save(const std::string& label, std::size_t runs) {
    ResultFile f = read_result_file(small_example());
    f.label = label;
    if (runs < f.runs.size()) {
        f.runs.resize(runs);
        f.complete = false;
        f.finished_at.clear();
    }
    return to_json(f).dump(1);
}

struct RunCount {
    long long files = 0, runs = 0, complete = 0;
};
inline RunCount run_count(const std::string& db, const std::filesystem::path& dir,
                          const std::string& label) {
    history::HistoryDb h(history::db_target(db, dir), history::OpenFor::reading);
    RunCount c;
    session_of(h) << "SELECT COUNT(*), COALESCE(SUM(complete), 0) FROM files WHERE label = :l",
        soci::use(label), soci::into(c.files), soci::into(c.complete);
    session_of(h)
        << "SELECT COUNT(*) FROM runs r JOIN files f ON f.id = r.file_id WHERE f.label = :l",
        soci::use(label), soci::into(c.runs);
    return c;
}

// A run is one run wherever its file lies. A host's save of a run cut at
// 10 runs (its sink gave up, or the run was cut), then the controller's
// import of the finished 25-run file fetched to another path: 25 runs, not
// 35. Then an older save imported after the finished file, at the finished
// file's own path and at a third: the finished file stays (25 runs,
// complete).
inline void check_a_run_counted_once(const std::string& db, const std::filesystem::path& dir) {
    const std::filesystem::path host = dir / "host" / "results" / "lab" / "2026-11-30T044314Z.json",
                                fetched = dir / "ctl" / "fetched" / "host1" / "lab" /
                                          "2026-11-30T044314Z.json",
                                elsewhere = dir / "ctl" / "old" / "lab.json";
    const auto import_file = [&](const std::filesystem::path& file) {
        const Outcome o = run_contest_binary({"history", "import", "--db", db, file.string()}, dir);
        INFO(o.err);
        CHECK(o.exit_code == 0);
        return o;
    };
    put_file(host, example_save("lab", 10));
    import_file(host);
    RunCount c = run_count(db, dir, "lab");
    CHECK(c.runs == 10);
    put_file(fetched, example_save("lab", 25));
    import_file(fetched);
    c = run_count(db, dir, "lab");
    CHECK(c.files == 1);
    CHECK(c.runs == 25);
    CHECK(c.complete == 1);
    for (const auto& older : {fetched, elsewhere}) {
        INFO(older);
        put_file(older, example_save("lab", 10));
        const Outcome o = import_file(older);
        CHECK_THAT(o.out, Catch::Contains("imported 0 file(s)") && Catch::Contains("1 already in"));
        c = run_count(db, dir, "lab");
        CHECK(c.files == 1);
        CHECK(c.runs == 25);
        CHECK(c.complete == 1);
    }
}

// A database that refuses one file's rows (`refuse` makes a trigger on
// files that refuses label "bad", saying "refused by the test"): that file
// is one warning naming it, the files before and after it go in, and the
// exit is 1. The schema is the binary's (a first file imported), the
// trigger made on it as it is.
inline void check_a_refused_file_skipped(const std::string& db, const std::filesystem::path& dir,
                                         const std::function<void(history::HistoryDb&)>& refuse) {
    put_file(dir / "first" / "r.json", example_save("first", 25));
    REQUIRE(run_contest_binary({"history", "import", "--db", db, (dir / "first").string()}, dir)
                .exit_code == 0);
    {
        history::HistoryDb h(history::db_target(db, dir), history::OpenFor::reading);
        refuse(h);
    }
    for (const char* label : {"a-good", "bad", "c-good"})
        put_file(dir / "in" / label / "r.json", example_save(label, 25));
    const Outcome o =
        run_contest_binary({"history", "import", "--db", db, (dir / "in").string()}, dir);
    INFO(o.out << o.err);
    CHECK(o.exit_code == 1);
    CHECK_THAT(o.err, Catch::Contains("warning") && Catch::Contains("in/bad/r.json") &&
                          Catch::Contains("refused by the test"));
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_THAT(o.out,
               Catch::Contains("imported 2 file(s) (50 runs)") && Catch::Contains("1 refused"));
    CHECK(run_count(db, dir, "a-good").runs == 25);
    CHECK(run_count(db, dir, "c-good").runs == 25);
    CHECK(run_count(db, dir, "bad").files == 0);
}

}  // namespace contest::test
