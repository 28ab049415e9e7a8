// `contest run` end to end, through the real binary: result file, table,
// exit codes, Ctrl-C, and that nothing it started outlives it.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_helpers.h"

using namespace contest;
using nlohmann::json;

namespace {

// The one result file a run wrote under dir/results, parsed.
json only_result(const test::ScratchDir& dir) {
    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    return json::parse(test::slurp(files[0]));
}

double mean_wall(const json& runs, const std::string& load) {
    double sum = 0;
    int n = 0;
    for (const auto& r : runs)
        if (r["load"] == load && r["status"] == "ok") sum += r["wall_s"].get<double>(), ++n;
    return n ? sum / n : 0;
}

// Ratio paired by round (docs/report.md): the geometric mean over rounds of
// the load's run over the same round's no_load run.
double paired_ratio(const json& runs, const std::string& load) {
    std::map<int, double> base, loaded;
    for (const auto& r : runs) {
        if (r["status"] != "ok") continue;
        if (r["load"] == "no_load") base[r["round"].get<int>()] = r["wall_s"].get<double>();
        if (r["load"] == load) loaded[r["round"].get<int>()] = r["wall_s"].get<double>();
    }
    double log_sum = 0;
    int n = 0;
    for (const auto& [round, wall] : loaded)
        if (base.count(round)) log_sum += std::log(wall / base[round]), ++n;
    return n ? std::exp(log_sum / n) : 0;
}

// The row of `label` in the block of `load` of a text table, split in words.
std::vector<std::string> table_row(const std::string& table, const std::string& load,
                                   const std::string& label) {
    std::istringstream in(table);
    std::string line;
    bool in_block = false;
    while (std::getline(in, line)) {
        if (line == load + ":")
            in_block = true;
        else if (line.ends_with(':') && line.find(' ') == std::string::npos)
            in_block = false;
        else if (in_block && line.starts_with(label + " ")) {
            std::istringstream words(line);
            std::vector<std::string> out;
            std::string w;
            while (words >> w) out.push_back(w);
            return out;
        }
    }
    return {};
}

std::vector<std::string> base_args(const test::ScratchDir& dir) {
    return {"--workdir", (dir / "work").string(), "--results", (dir / "results").string(),
            "--quiet"};
}

}  // namespace

TEST_CASE("contest run times a tiny synthetic workload under no_load and cpu_load", "[e2e][slow]") {
    test::ScratchDir dir("e2e-run");
    auto args = base_args(dir);
    args.insert(args.begin(), "run");
    for (std::string a : {"-k", "e2e-kernel", "-n", "2", "-w", "synthetic", "--synthetic-size", "8",
                          "--warmup", "1", "no_load", "cpu_load"})
        args.push_back(a);
    auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::leftover_processes().empty());

    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    CHECK(files[0].parent_path().filename() == "e2e-kernel");
    json j = json::parse(test::slurp(files[0]));
    CHECK(j["schema_version"] == 1);
    CHECK(j["complete"] == true);
    CHECK(j["label"] == "e2e-kernel");
    CHECK(j["system"].contains("kernel_release"));
    CHECK(j["config"]["workload"].is_object());
    CHECK(j["config"]["command_line"] == args);  // so a post can say how to repeat it
    const auto post = test::run_contest_binary(
        {"post", "--results", (dir / "results").string(), "e2e-kernel"}, dir.path());
    CHECK(post.out.find("How it was run:\n  $ contest run --workdir ") != std::string::npos);
    REQUIRE(j["runs"].size() == 4);
    for (const auto& r : j["runs"]) {
        CHECK(r["status"] == "ok");
        CHECK(r["wall_s"].get<double>() > 0);
        CHECK(r["user_s"].get<double>() > 0);
        CHECK(r["cpu_pct"].get<double>() > 0);
        CHECK(r["max_rss_kib"].get<double>() > 0);
        CHECK((r["caches"] == "dropped" ||
               r["caches"].get<std::string>().starts_with("not dropped")));
        if (r["load"] == "cpu_load") {
            CHECK(r["load_units"].get<double>() > 0);
            CHECK(r["load_cpu_pct"].get<double>() > 0);
            CHECK(r["load_unit"] == "M loops");
        } else {
            CHECK(r["load_units"].get<double>() == 0);
        }
    }
    // The table printed at the end shows the JSON's means, and Ratio paired
    // by round from the same runs.
    double ratio = paired_ratio(j["runs"], "cpu_load");
    auto row = table_row(o.out, "cpu_load", "e2e-kernel");
    INFO(o.out);
    REQUIRE(row.size() >= 7);
    CHECK(std::stod(row[2]) == Approx(mean_wall(j["runs"], "cpu_load")).margin(0.051));
    CHECK(std::stod(row.back()) == Approx(ratio).margin(0.0051));
    auto base = table_row(o.out, "no_load", "e2e-kernel");
    REQUIRE(base.size() >= 7);
    CHECK(base.back() == "1.00");
    // No load folder is left in the workdir.
    CHECK(std::filesystem::is_empty(dir / "work" / "loads"));
}

TEST_CASE("Ctrl-C stops the loads and the workload, keeps finished runs, exits 130",
          "[e2e][slow]") {
    test::ScratchDir dir("e2e-int");
    std::vector<std::string> args{
        "run",     "-k",       "int", "-n",       "3",           "-w", "command", "--workload-cmd",
        "sleep 2", "--warmup", "0.5", "cpu_load", "process_load"};
    for (auto& a : base_args(dir)) args.push_back(a);
    pid_t pid = test::start_contest(args, dir.path());
    // Wait for the first finished run to be saved, then interrupt mid-run.
    json j;
    for (int i = 0; i < 300; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        auto files = test::result_files(dir / "results");
        if (files.empty()) continue;
        try {
            j = json::parse(test::slurp(files[0]));
        } catch (...) {
            continue;
        }
        if (j["runs"].size() >= 1) break;
    }
    REQUIRE(j["runs"].size() >= 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    ::kill(pid, SIGINT);
    auto o = test::finish_contest(pid, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 130);
    CHECK(test::leftover_processes().empty());
    j = only_result(dir);
    CHECK(j["complete"] == false);
    CHECK(j["runs"].size() >= 1);
    CHECK(std::filesystem::is_empty(dir / "work" / "loads"));
}

TEST_CASE("a failing workload is recorded, exits 1, and leaves nothing running", "[e2e][slow]") {
    test::ScratchDir dir("e2e-fail");
    std::vector<std::string> args{"run",
                                  "-k",
                                  "fail",
                                  "-n",
                                  "1",
                                  "-w",
                                  "command",
                                  "--workload-cmd",
                                  "sh -c 'sleep 60 & exit 4'",
                                  "--warmup",
                                  "0.5",
                                  "cpu_load"};
    for (auto& a : base_args(dir)) args.push_back(a);
    auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK_THAT(o.err, Catch::Contains("exit 4"));
    CHECK(test::leftover_processes().empty());
    json j = only_result(dir);
    REQUIRE(j["runs"].size() == 1);
    CHECK(j["runs"][0]["status"] == "workload_failed");
    CHECK(j["runs"][0]["exit_status"] == 4);
}

TEST_CASE("bad input gets one line naming what is wrong and exit 2", "[e2e]") {
    test::ScratchDir dir("e2e-bad");
    auto one_line = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n') == 1; };

    auto o = test::run_contest_binary({"run", "no_such_load", "--workdir", (dir / "w").string()},
                                      dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("no_such_load"));
    CHECK(one_line(o.err));

    o = test::run_contest_binary({"run", "--runs", "many"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("runs"));
    CHECK(one_line(o.err));

    o = test::run_contest_binary({"run", "--order", "random"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("--order 'random'"));
    CHECK(one_line(o.err));

    o = test::run_contest_binary({"run", "--no-such-option"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(one_line(o.err));

    std::ofstream(dir / "bad.conf") << "runs = 1\nworkload = synthetic\nbogus-key = 3\n";
    o = test::run_contest_binary({"run", "--config", (dir / "bad.conf").string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("bad.conf:3"));
    CHECK(one_line(o.err));

    o = test::run_contest_binary({"run", "--config", (dir / "missing.conf").string()}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK_THAT(o.err, Catch::Contains("missing.conf"));

    o = test::run_contest_binary({"frobnicate"}, dir.path());
    CHECK(o.exit_code == 2);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("the command line wins over the config file", "[e2e][slow]") {
    test::ScratchDir dir("e2e-conf");
    std::ofstream(dir / "c.conf")
        << "runs = 3\nlabel = from-config\nworkload = command\nworkload-cmd = true\n"
           "load = no_load\n";
    std::vector<std::string> args{"run", "--config", (dir / "c.conf").string(), "-n", "1"};
    for (auto& a : base_args(dir)) args.push_back(a);
    auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    json j = only_result(dir);
    CHECK(j["label"] == "from-config");
    CHECK(j["runs"].size() == 1);
}

TEST_CASE("run order: shuffled rounds by default, with the seed recorded, rounds, blocks",
          "[e2e][slow]") {
    struct Seen {
        std::string order;
        std::uint64_t seed;
        std::vector<std::string> runs;
    };
    auto run_with = [](std::vector<std::string> order_options) {
        test::ScratchDir dir("e2e-order");
        std::vector<std::string> args{"run", "-k",      "order",          "-n",   "3",
                                      "-w",  "command", "--workload-cmd", "true", "--warmup",
                                      "0.2", "no_load", "cpu_load"};
        args.insert(args.end(), order_options.begin(), order_options.end());
        for (auto& a : base_args(dir)) args.push_back(a);
        auto o = test::run_contest_binary(args, dir.path());
        INFO(o.err);
        REQUIRE(o.exit_code == 0);
        CHECK(test::leftover_processes().empty());
        json j = only_result(dir);
        Seen seen{j["config"]["order"], j["config"]["order_seed"], {}};
        for (const auto& r : j["runs"])
            seen.runs.push_back(r["load"].get<std::string>() + "#" +
                                std::to_string(r["index"].get<int>()));
        return seen;
    };
    auto shuffled = run_with({});
    CHECK(shuffled.order == "shuffled");
    REQUIRE(shuffled.runs.size() == 6);
    for (std::size_t round = 0; round < 3; ++round) {  // both loads in every round
        std::set<std::string> in_round{shuffled.runs[2 * round], shuffled.runs[2 * round + 1]};
        const std::string n = std::to_string(round + 1);
        CHECK(in_round == std::set<std::string>{"no_load#" + n, "cpu_load#" + n});
    }
    // The recorded seed repeats the order.
    auto again = run_with({"--seed", std::to_string(shuffled.seed)});
    CHECK(again.runs == shuffled.runs);
    CHECK(again.seed == shuffled.seed);

    CHECK(run_with({"--order", "rounds"}).runs ==
          std::vector<std::string>{"no_load#1", "cpu_load#1", "no_load#2", "cpu_load#2",
                                   "no_load#3", "cpu_load#3"});
    CHECK(run_with({"--order", "blocks"}).runs ==
          std::vector<std::string>{"no_load#1", "no_load#2", "no_load#3", "cpu_load#1",
                                   "cpu_load#2", "cpu_load#3"});
}

TEST_CASE("a run records what else used the machine, and the table warns of it", "[e2e][slow]") {
    test::ScratchDir dir("e2e-others");
    // Something outside contest keeps one CPU busy for the whole run.
    struct Hog {
        pid_t pid = ::fork();
        Hog() {
            if (pid == 0) {
                volatile unsigned long spin = 0;
                for (;;) spin = spin + 1;
            }
        }
        ~Hog() {
            if (pid > 0) ::kill(pid, SIGKILL), ::waitpid(pid, nullptr, 0);
        }
    };
    auto hog = std::make_unique<Hog>();
    REQUIRE(hog->pid > 0);
    std::vector<std::string> args{"run", "-k",      "others",         "-n",        "2",
                                  "-w",  "command", "--workload-cmd", "sleep 1.5", "no_load"};
    for (auto& a : base_args(dir)) args.push_back(a);
    auto o = test::run_contest_binary(args, dir.path());
    hog.reset();
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    json j = only_result(dir);
    REQUIRE(j["runs"].size() == 2);
    for (const auto& r : j["runs"]) {
        // The hog had a CPU to itself (2 or more CPUs here) or shared one:
        // either way far above the 10% that makes a warning.
        CHECK(r["others_cpu_pct"].get<double>() > 40);
        CHECK(r["steal_pct"].get<double>() >= 0);
        CHECK(r["unit_cpu_us"].get<double>() > 0);
    }
    CHECK_THAT(o.err, Catch::Contains("others: other work on the machine used"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("contest load process_load reports ring hops per second", "[e2e][slow]") {
    test::ScratchDir dir("e2e-load");
    auto o = test::run_contest_binary({"load", "process_load", "--duration", "2", "--format",
                                       "json", "--workdir", (dir / "w").string()},
                                      dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    json j = json::parse(o.out);
    CHECK(j["unit"] == "ring hops");
    CHECK(j["rate_per_s"].get<double>() > 1000);
    CHECK(j["cpu_pct"].get<double>() > 0);  // its share of a busy machine: any
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a run records the wait before it for the machine to settle", "[e2e]") {
    auto settled_runs = [](const std::string& name, const std::vector<std::string>& settle) {
        test::ScratchDir dir(name);
        std::vector<std::string> args = {"run",
                                         "--quiet",
                                         "-k",
                                         "settle",
                                         "-w",
                                         "command",
                                         "--workload-cmd",
                                         "true",
                                         "-n",
                                         "2",
                                         "--warmup",
                                         "0",
                                         "--timeline-hz",
                                         "0",
                                         "--workdir",
                                         (dir / "w").string(),
                                         "--results",
                                         (dir / "r").string()};
        args.insert(args.end(), settle.begin(), settle.end());
        args.push_back("no_load");
        auto o = test::run_contest_binary(args, dir.path());
        INFO(o.err);
        REQUIRE(o.exit_code == 0);
        json j;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "r"))
            if (e.path().extension() == ".json") j = json::parse(test::slurp(e.path()));
        REQUIRE(j["runs"].size() == 2);
        return j;
    };
    // Off by default: said so in every run.
    const json off = settled_runs("settle-off", {});
    CHECK(off["config"]["settle_s"] == 0);
    for (const auto& r : off["runs"]) {
        CHECK(r["settle"] == "off");
        CHECK(r["settle_wait_s"] == 0);
    }
    // Bounded: settled within the bound, or said not to be (a shared machine).
    const json on = settled_runs("settle-on", {"--settle", "1"});
    for (const auto& r : on["runs"]) {
        const std::string state = r["settle"].get<std::string>();
        INFO(state);
        CHECK((state == "settled" || state.starts_with("not settled after 1 s: ")));
        CHECK(r["settle_wait_s"].get<double>() <= 30);
    }
}
