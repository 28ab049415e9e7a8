// `contest run --runs auto` (issue 12): rounds are added until every load's
// paired Ratio CI is under --target-ci, or --max-runs is reached; the result
// file says which.
#include <catch2/catch.hpp>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_helpers.h"

namespace {

using nlohmann::json;

json auto_run(const contest::test::ScratchDir& dir, const std::string& target_ci,
              const std::string& max_runs) {
    auto o = contest::test::run_contest_binary({"run",
                                                "--quiet",
                                                "-k",
                                                "auto",
                                                "-w",
                                                "command",
                                                "--workload-cmd",
                                                "sleep 0.3",
                                                "--runs",
                                                "auto",
                                                "--target-ci",
                                                target_ci,
                                                "--max-runs",
                                                max_runs,
                                                "--warmup",
                                                "0.5",
                                                "--workdir",
                                                (dir / "work").string(),
                                                "--results",
                                                (dir / "results").string(),
                                                "no_load",
                                                "cacherun"},
                                               dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    std::filesystem::path file;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "results"))
        if (e.path().extension() == ".json") file = e.path();
    REQUIRE(!file.empty());
    return json::parse(contest::test::slurp(file));
}

int rounds_of(const json& j) {
    int rounds = 0;
    for (const auto& r : j["runs"]) rounds = std::max(rounds, r["round"].get<int>());
    return rounds;
}

}  // namespace

TEST_CASE("run --runs auto stops on its own when the CI is reached, and --max-runs bounds it",
          "[e2e][slow]") {
    {
        // A sleep's Ratio CI is far under 50%: it stops at the fewest rounds it judges on.
        contest::test::ScratchDir dir("runs-auto-target");
        json j = auto_run(dir, "50", "8");
        CHECK(j["config"]["runs"] == "auto");
        CHECK(j["stopped_because"].get<std::string>().find("under") != std::string::npos);
        CHECK(rounds_of(j) >= 2);
        CHECK(rounds_of(j) < 8);
        CHECK(j["complete"] == true);
    }
    {
        // No CI of a sleep's jitter is under 0.01%: it runs --max-runs rounds and says so.
        contest::test::ScratchDir dir("runs-auto-max");
        json j = auto_run(dir, "0.01", "3");
        CHECK(j["stopped_because"].get<std::string>().find("--max-runs 3 reached") !=
              std::string::npos);
        CHECK(rounds_of(j) == 3);
        CHECK(j["runs"].size() == 6);
    }
    CHECK(contest::test::leftover_processes().empty());
}
