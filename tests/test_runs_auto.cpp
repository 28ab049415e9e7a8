// `contest run --runs auto`: rounds are added until every load's paired
// Ratio CI is under --target-ci (one label) or every compared Time's minimum
// detectable effect under --target-mde (two labels), or --max-runs or
// --budget stop them; the result files say which.
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

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

namespace {

// No settling wait, no warm-up, no timeline; the work and results folders in `dir`.
std::vector<std::string> without_waits(const contest::test::ScratchDir& dir) {
    return {"--settle",      "0",
            "--warmup",      "0",
            "--timeline-hz", "0",
            "--workdir",     (dir / "work").string(),
            "--results",     (dir / "results").string()};
}

// Two labels of one --vary run of a plain stand-in knob (docs/vary.md, for
// tests only), the command workload a short sleep, no settling wait: the
// result files of both, in label order.
struct ComparedRun {
    int exit_code = 0;
    std::string err;
    std::vector<json> files;
    std::vector<std::filesystem::path> paths;
};

ComparedRun compared_auto_run(const contest::test::ScratchDir& dir,
                              const std::vector<std::string>& auto_options) {
    const auto knobs = dir / "knobs";
    std::filesystem::create_directories(knobs);
    std::ofstream(knobs / "factor") << "1\n";
    ::setenv("CONTEST_TEST_KNOB_ROOT", knobs.c_str(), 1);
    std::vector<std::string> args = {"run",
                                     "--quiet",
                                     "-k",
                                     "cmp",
                                     "-w",
                                     "command",
                                     "--workload-cmd",
                                     "sleep 0.2",
                                     "--vary",
                                     (knobs / "factor").string() + "=1,2",
                                     "--runs",
                                     "auto"};
    for (const auto& o : without_waits(dir)) args.push_back(o);
    args.insert(args.end(), auto_options.begin(), auto_options.end());
    args.push_back("no_load");
    auto o = contest::test::run_contest_binary(args, dir.path());
    ::unsetenv("CONTEST_TEST_KNOB_ROOT");
    ComparedRun run{o.exit_code, o.err, {}, {}};
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "results"))
        if (e.path().extension() == ".json") run.paths.push_back(e.path());
    std::sort(run.paths.begin(), run.paths.end());
    for (const auto& p : run.paths) run.files.push_back(json::parse(contest::test::slurp(p)));
    return run;
}

std::string stop_reason(const ComparedRun& run) {
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    REQUIRE(run.files.size() == 2);
    // Every label's file says the same, and contest said it too.
    CHECK(run.files[0]["stopped_because"] == run.files[1]["stopped_because"]);
    const std::string why = run.files[0]["stopped_because"].get<std::string>();
    CHECK(run.err.find("--runs auto stopped: " + why) != std::string::npos);
    return why;
}

}  // namespace

TEST_CASE("run --runs auto with two labels stops on the Time MDE, --max-runs or --budget",
          "[e2e][slow]") {
    {
        // Two sleeps alike: the MDE of their paired Time test is far under 60%.
        contest::test::ScratchDir dir("runs-auto-mde");
        const auto run = compared_auto_run(dir, {"--target-mde", "60", "--max-runs", "8"});
        const std::string why = stop_reason(run);
        CHECK(why.find("every compared Time's MDE was under ±60%") != std::string::npos);
        CHECK(rounds_of(run.files[0]) >= 3);
        CHECK(rounds_of(run.files[0]) < 8);
        CHECK(run.files[0]["config"]["target_mde_pct"] == 60);
    }
    {
        // No MDE of a sleep's jitter is under 0.01%; the MDE it says is what
        // the runs could see, as compare states it without a minimum effect.
        contest::test::ScratchDir dir("runs-auto-mde-max");
        const auto run = compared_auto_run(dir, {"--target-mde", "0.01", "--max-runs", "3"});
        const std::string why = stop_reason(run);
        const std::string was = "--max-runs 3 reached; the largest Time MDE was ±";
        REQUIRE(why.find(was) != std::string::npos);
        CHECK(rounds_of(run.files[0]) == 3);
        const double stated = std::stod(why.substr(why.find(was) + was.size()));
        auto o =
            contest::test::run_contest_binary({"compare", "--format", "json", "--min-effect", "0",
                                               run.paths[0].string(), run.paths[1].string()},
                                              dir.path());
        INFO(o.err);
        REQUIRE(o.exit_code == 0);
        const json compared = json::parse(o.out);
        REQUIRE(compared["loads"].size() == 1);
        const double could_see = compared["loads"][0]["time_mde_pct"].get<double>();
        INFO("compare --min-effect 0 states ±" << could_see << "%");
        CHECK(stated > 0.01);
        CHECK(std::fabs(stated - could_see) <= 0.006);
    }
    {
        // A round of two 0.2 s runs cannot fit twice in one second.
        contest::test::ScratchDir dir("runs-auto-budget");
        const auto run =
            compared_auto_run(dir, {"--target-mde", "0.01", "--max-runs", "50", "--budget", "1s"});
        const std::string why = stop_reason(run);
        CHECK(why.find("--budget 1s: another round") != std::string::npos);
        CHECK(rounds_of(run.files[0]) < 50);
        CHECK(run.files[0]["config"]["budget_s"] == 1);
    }
    CHECK(contest::test::leftover_processes().empty());
}

TEST_CASE("run checks --budget and --target-mde", "[e2e]") {
    contest::test::ScratchDir dir("runs-auto-budget-bad");
    for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--runs", "auto", "--budget", "45x"}, "--budget must be a time such as 90s"},
             {{"--runs", "auto", "--budget", "0s"}, "--budget must be a time such as 90s"},
             {{"--runs", "3", "--budget", "45m"}, "--budget needs --runs auto"},
             {{"--runs", "3", "--target-mde", "5"}, "--target-mde needs --runs auto"}}) {
        std::vector<std::string> full = {"run", "-w", "command", "--workload-cmd", "true"};
        full.insert(full.end(), args.begin(), args.end());
        auto o = contest::test::run_contest_binary(full, dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 2);
        CHECK(o.err.find(says) != std::string::npos);
    }
}

namespace {

// The about-so-many seconds --budget's stop reason gives the next round.
double next_round_estimate_s(const std::string& why) {
    const std::string about = "another round (about ";
    const auto at = why.find(about);
    REQUIRE(at != std::string::npos);
    return std::stod(why.substr(at + about.size()));
}

// The seconds this invocation's runs took, as that stop reason says them.
double seconds_after(const std::string& why) {
    const std::string after = "would end past it, after ";
    const auto at = why.find(after);
    REQUIRE(at != std::string::npos);
    return std::stod(why.substr(at + after.size()));
}

}  // namespace

TEST_CASE("run --runs auto --budget under --resume takes a round to last as this run's rounds",
          "[e2e][slow]") {
    // The rounds the resumed file holds took none of this invocation's time:
    // a round is estimated from the rounds this invocation ran.
    contest::test::ScratchDir dir("runs-auto-budget-resume");
    std::vector<std::string> args = {
        "run",       "--quiet", "-k",   "resumed",     "-w",   "command",    "--workload-cmd",
        "sleep 0.5", "--runs",  "auto", "--target-ci", "0.01", "--max-runs", "20",
        "--budget",  "3s"};
    for (const auto& o : without_waits(dir)) args.push_back(o);
    args.insert(args.end(), {"no_load", "cacherun"});
    auto first = contest::test::run_contest_binary(args, dir.path());
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    std::filesystem::path file;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "results"))
        if (e.path().extension() == ".json") file = e.path();
    REQUIRE(!file.empty());
    // As an interrupted run leaves it: not complete, no reason to stop yet.
    json before = json::parse(contest::test::slurp(file));
    const int rounds_before = rounds_of(before);
    REQUIRE(rounds_before >= 1);
    before["complete"] = false;
    before.erase("stopped_because");
    before.erase("finished_at");
    std::ofstream(file) << before.dump(2);

    // The run from its journal (its --runs auto, --budget and loads), no word but the file.
    auto again = contest::test::run_contest_binary({"run", "--quiet", "--resume", file.string()},
                                                   dir.path());
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    const json after = json::parse(contest::test::slurp(file));
    const std::string why = after["stopped_because"].get<std::string>();
    INFO(why);
    REQUIRE(why.find("--budget 3s: another round") != std::string::npos);
    REQUIRE(rounds_of(after) > rounds_before);
    // The next round is taken to last as long as this invocation's rounds
    // did on average; a mean over every round the file holds (those before
    // the resume took none of this time) would be much less.
    const int rounds_now = rounds_of(after) - rounds_before;
    const double now_s = seconds_after(why);
    const double mean_now_s = now_s / rounds_now;
    INFO(rounds_now << " rounds in " << now_s << " s");
    CHECK(next_round_estimate_s(why) >= mean_now_s * 0.9 - 0.06);
    CHECK(next_round_estimate_s(why) <= mean_now_s * 1.1 + 0.06);
    CHECK(contest::test::leftover_processes().empty());
}
