// The history's series as the robot (contest track) and `contest history`
// read them, through history/'s functions: a stored file's series
// (series_of_file), and where a series moved, in its own order and in a
// branch's (series_changes), each over real rows of a real SQLite file.
#include <nlohmann/json.hpp>

#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/series.h"
#include "contest/history/series_changes.h"
#include "contest/sys/errors.h"
#include "history_support.h"

using namespace contest;
using namespace contest::history;
using namespace contest::test;
namespace fs = std::filesystem;

namespace {

// The branch's i-th commit (1-based): forty of one digit.
std::string commit_of(int i) {
    return std::string(40, static_cast<char>('0' + i));
}

// Eight builds of `tree` in dir/results, the branch's commits 1 to 8, from
// the fifth on 30% slower; their releases run the other way (commit 1 is
// 6.1.8), so the series' own order (version order) is the branch's
// reversed. Imported into dir/h.sqlite; the first file's path.
fs::path eight_builds(const ScratchDir& dir, const std::string& tree) {
    for (int i = 1; i <= 8; ++i) {
        const fs::path path = dir / "results" / ("k" + std::to_string(i)) / "r.json";
        const std::string release = "6.1." + std::to_string(9 - i);
        put_example_as(path, "k" + std::to_string(i), release, i <= 4 ? 1.0 : 1.3);
        nlohmann::json j = nlohmann::json::parse(slurp(path));
        j["config"]["kernel"] = {{"release", release},
                                 {"build",
                                  {{"tree", tree},
                                   {"ref", "r" + std::to_string(i)},
                                   {"commit", commit_of(i)},
                                   {"key", "k" + std::to_string(i)}}}};
        put_file(path, j.dump(1));
    }
    HistoryDb db(db_target((dir / "h.sqlite").string(), dir.path()), OpenFor::writing);
    const ImportTally t = import_paths(db, {dir / "results"}, "2026-12-07T00:00:00Z");
    REQUIRE(t.added == 8);
    return dir / "results" / "k1" / "r.json";
}

}  // namespace

TEST_CASE("history: a stored file's series found by its machine and workload", "[history]") {
    ScratchDir dir("history-series-of-file");
    const ResultFile file = read_result_file(eight_builds(dir, "/src/linux"));
    HistoryDb db(db_target((dir / "h.sqlite").string(), dir.path()), OpenFor::reading);
    const SeriesKey key = series_of_file(db, file, "io_load", "wall_s");
    CHECK(key.text() == "m1/w1/io_load/wall_s");
    // The key is the series `contest history` lists, with the file's runs.
    const SeriesPoints s = series_points(db, key);
    CHECK(s.points.size() == 8);
    // A file of another machine, or of another workload, is in no series
    // here: said, not a key of id 0.
    ResultFile elsewhere = file;
    elsewhere.system["hostname"] = "elsewhere";
    CHECK_THROWS_AS(series_of_file(db, elsewhere, "io_load", "wall_s"), UsageError);
    CHECK_THROWS_WITH(series_of_file(db, elsewhere, "io_load", "wall_s"),
                      Catch::Contains("its machine is not in"));
    ResultFile other_work = file;
    other_work.config["workload"]["jobs"] = 99;
    CHECK_THROWS_WITH(series_of_file(db, other_work, "io_load", "wall_s"),
                      Catch::Contains("its workload is not in"));
}

TEST_CASE("history: a series' changes in its own order and in a branch's", "[history]") {
    ScratchDir dir("history-series-changes");
    const std::string tree = "/src/linux";
    eight_builds(dir, tree);
    HistoryDb db(db_target((dir / "h.sqlite").string(), dir.path()), OpenFor::reading);
    const SeriesPoints s = series_points(db, SeriesKey{1, 1, "io_load", "wall_s"});
    REQUIRE(s.order == KernelOrder::versions);
    ChangePointOptions options;

    // In the series' order (version order: the branch's reversed), the step
    // is a fall, between commit 5 and commit 4.
    const SeriesChanges own = series_changes(s, options);
    REQUIRE(own.points.size() == 8);
    CHECK(own.points.front()->commit == commit_of(8));
    REQUIRE(own.changes.size() == 1);
    CHECK(own.changes[0].change < 0);
    CHECK(own.points[own.changes[0].index - 1]->commit == commit_of(5));
    CHECK(own.points[own.changes[0].index]->commit == commit_of(4));

    // In the branch's order, the same step is a rise, from commit 4 to 5,
    // and the values are the points' own, in that order.
    CommitPlaces branch;
    branch.tree = tree;
    for (int i = 1; i <= 8; ++i) branch.place[commit_of(i)] = static_cast<std::size_t>(i);
    const SeriesChanges ours = series_changes(s, branch, options);
    REQUIRE(ours.points.size() == 8);
    REQUIRE(ours.values.size() == 8);
    for (std::size_t i = 0; i < 8; ++i) {
        CHECK(ours.points[i]->commit == commit_of(static_cast<int>(i) + 1));
        CHECK(ours.values[i] == ours.points[i]->values);
    }
    REQUIRE(ours.changes.size() == 1);
    CHECK(ours.changes[0].change == Approx(0.3).margin(0.01));
    CHECK(ours.points[ours.changes[0].index - 1]->commit == commit_of(4));
    CHECK(ours.points[ours.changes[0].index]->commit == commit_of(5));

    // Only the points the branch names, and only its tree's builds.
    CommitPlaces fewer = branch;
    fewer.place.erase(commit_of(8));
    CHECK(series_changes(s, fewer, options).points.size() == 7);
    CommitPlaces another_tree = branch;
    another_tree.tree = "/src/other";
    CHECK(series_changes(s, another_tree, options).points.empty());
    // Any tree's builds when the places name none (another host's clone).
    CommitPlaces any_tree = branch;
    any_tree.tree.clear();
    CHECK(series_changes(s, any_tree, options).points.size() == 8);
}
