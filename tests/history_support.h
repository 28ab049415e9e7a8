#pragma once
// Shared by the history's tests on SQLite and on PostgreSQL: result files
// made from a committed example (its label, kernel and times set), the
// counts of the database's tables, and the checks both databases pass.
#include <soci/soci.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/sys/errors.h"
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

inline long long count_rows(history::HistoryDb& db, const std::string& table) {
    long long n = 0;
    db.sql() << "SELECT COUNT(*) FROM " + table, soci::into(n);
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
        db.sql() << "INSERT INTO schema_version (version) VALUES (99)";
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

}  // namespace contest::test
