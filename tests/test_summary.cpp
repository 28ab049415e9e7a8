// `contest run --summary-json`: the per-load summary engines turn into test
// cases (contest/analysis/run_summary.h), from a result file and through the binary.
#include <cmath>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "contest/analysis/build_report_model.h"
#include "contest/report/report_options.h"
#include "contest/result/result_file.h"
#include "contest/analysis/run_summary.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;

namespace {

RunRecord run_of(const std::string& load, int index, double wall_s, bool ok = true) {
    RunRecord r;
    r.load = load;
    r.index = index;
    r.wall_s = wall_s;
    if (!ok) {
        r.status = RunStatus::workload_failed;
        r.reason = "exit 4";
        r.exit_status = 4;
    }
    return r;
}

// Runs recorded in a shuffled order, as `--order shuffled` writes them.
ResultFile shuffled_result() {
    ResultFile f;
    f.label = "6.1.0-test";
    f.complete = true;
    f.system = {{"hostname", "lab-7"}, {"kernel_release", "6.1.0-test"}};
    f.runs = {run_of("io_load", 1, 30, false), run_of("process_load", 1, 22),
              run_of("no_load", 1, 10),        run_of("process_load", 2, 99, false),
              run_of("io_load", 2, 31, false), run_of("no_load", 2, 12)};
    return f;
}

const json& entry(const json& summary, const std::string& load) {
    for (const auto& e : summary["loads"])
        if (e["load"] == load) return e;
    FAIL("no summary entry for " << load);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("the summary has one entry per load in contest's order with its numbers", "[summary]") {
    json s = run_summary(shuffled_result(), "results/6.1.0-test/x.json");
    CHECK(s["schema_version"] == 1);
    CHECK(s["label"] == "6.1.0-test");
    CHECK(s["host"] == "lab-7");
    CHECK(s["complete"] == true);
    // Absolute, so that an engine can read it from anywhere.
    const std::string file = s["result_file"];
    CHECK(file.front() == '/');
    CHECK_THAT(file, Catch::EndsWith("/results/6.1.0-test/x.json"));
    REQUIRE(s["loads"].size() == 3);
    CHECK(s["loads"][0]["load"] == "no_load");
    CHECK(s["loads"][1]["load"] == "process_load");
    CHECK(s["loads"][2]["load"] == "io_load");

    const json& base = entry(s, "no_load");
    CHECK(base["runs"] == 2);
    CHECK(base["failed_runs"] == 0);
    CHECK(base["mean_time_s"].get<double>() == Approx(11.0));
    CHECK(base["ratio"].get<double>() == Approx(1.0));
    CHECK(base["exit_code"] == 0);

    // The failed run's 99 s is left out of the mean, as the table does.
    const json& ring = entry(s, "process_load");
    CHECK(ring["runs"] == 2);
    CHECK(ring["failed_runs"] == 1);
    CHECK(ring["mean_time_s"].get<double>() == Approx(22.0));
    CHECK(ring["ratio"].get<double>() == Approx(2.0));
    CHECK(ring["exit_code"] == 1);

    const json& io = entry(s, "io_load");
    CHECK(io["runs"] == 2);
    CHECK(io["failed_runs"] == 2);
    CHECK(io["mean_time_s"].is_null());
    CHECK(io["ratio"].is_null());
    CHECK(io["exit_code"] == 1);

    CHECK(s["exit_code"] == 1);
}

TEST_CASE("without a passing no_load there is no ratio, and all passing exits 0", "[summary]") {
    ResultFile f;
    f.label = "k";
    f.runs = {run_of("cpu_load", 1, 5), run_of("cpu_load", 2, 7)};
    json s = run_summary(f, "r.json");
    REQUIRE(s["loads"].size() == 1);
    CHECK(s["loads"][0]["mean_time_s"].get<double>() == Approx(6.0));
    CHECK(s["loads"][0]["ratio"].is_null());
    CHECK(s["exit_code"] == 0);
    CHECK(s["host"] == "");

    f.runs.push_back(run_of("no_load", 1, 0, false));
    s = run_summary(f, "r.json");
    CHECK(entry(s, "cpu_load")["ratio"].is_null());
    CHECK(s["exit_code"] == 1);
}

TEST_CASE("the summary's Ratio is the table's: paired by round", "[summary]") {
    // Taken in rounds: the table's Ratio is the geometric mean of each
    // round's ratio (3 and 1: 1.73), not the mean over the mean (25 / 15).
    ResultFile f;
    f.label = "k";
    f.complete = true;
    f.config = {{"order", "shuffled"}};
    f.runs = {run_of("no_load", 1, 10), run_of("cpu_load", 1, 30), run_of("cpu_load", 2, 20),
              run_of("no_load", 2, 20)};
    f.runs[0].round = f.runs[1].round = 1;
    f.runs[2].round = f.runs[3].round = 2;
    ReportOptions options;
    options.print_warnings = false;
    const ReportModel table = build_report_model({f}, options);
    const Cell* cell = table.find_cell("cpu_load", "k");
    REQUIRE(cell);
    REQUIRE(cell->ratio);
    REQUIRE(*cell->ratio == Approx(std::sqrt(3.0)));
    REQUIRE(*cell->ratio != Approx(25.0 / 15.0).epsilon(0.01));

    const json s = run_summary(f, "r.json");
    CHECK(entry(s, "cpu_load")["ratio"].get<double>() == Approx(*cell->ratio));
    CHECK(entry(s, "no_load")["ratio"].get<double>() == Approx(1.0));
    // Mean time stays the plain mean of the passing runs.
    CHECK(entry(s, "cpu_load")["mean_time_s"].get<double>() == Approx(25.0));
}

TEST_CASE("the summary file is written whole, with no temporary left", "[summary]") {
    test::ScratchDir dir("summary-write");
    write_run_summary(dir / "s.json", shuffled_result(), "x.json");
    json back = json::parse(test::slurp(dir / "s.json"));
    CHECK(back == run_summary(shuffled_result(), "x.json"));
    int files = 0;
    for (auto& e : std::filesystem::directory_iterator(dir.path())) files += e.is_regular_file();
    CHECK(files == 1);
}

TEST_CASE("contest run --summary-json writes the summary of the run", "[e2e][summary]") {
    test::ScratchDir dir("summary-e2e");
    auto run = [&](const std::string& cmd, const std::string& summary) {
        std::vector<std::string> args{"run", "-k",       "sum",     "-n",
                                      "2",   "-w",       "command", "--workload-cmd",
                                      cmd,   "--warmup", "0",       "--quiet"};
        for (std::string a : std::initializer_list<std::string>{
                 "--workdir", (dir / "work").string(), "--results", (dir / "results").string(),
                 "--summary-json", (dir / summary).string(), "no_load", "cacherun"})
            args.push_back(a);
        return test::run_contest_binary(args, dir.path());
    };
    auto o = run("sleep 0.2", "ok.json");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    json s = json::parse(test::slurp(dir / "ok.json"));
    CHECK(s["label"] == "sum");
    CHECK(s["exit_code"] == 0);
    CHECK(std::filesystem::exists(s["result_file"].get<std::string>()));
    REQUIRE(s["loads"].size() == 2);
    CHECK(s["loads"][0]["load"] == "no_load");
    CHECK(s["loads"][1]["load"] == "cacherun");
    for (const auto& e : s["loads"]) {
        CHECK(e["runs"] == 2);
        CHECK(e["failed_runs"] == 0);
        CHECK(e["exit_code"] == 0);
        // A 0.2 s sleep: wide bounds, this is not a timing test.
        CHECK(e["mean_time_s"].get<double>() > 0.15);
        CHECK(e["mean_time_s"].get<double>() < 5);
        CHECK(e["ratio"].get<double>() > 0);
    }

    o = run("sh -c 'exit 4'", "fail.json");
    INFO(o.err);
    CHECK(o.exit_code == 1);
    s = json::parse(test::slurp(dir / "fail.json"));
    CHECK(s["exit_code"] == o.exit_code);
    for (const auto& e : s["loads"]) {
        CHECK(e["failed_runs"] == 2);
        CHECK(e["exit_code"] == 1);
        CHECK(e["mean_time_s"].is_null());
    }
    CHECK(test::leftover_processes().empty());
}
