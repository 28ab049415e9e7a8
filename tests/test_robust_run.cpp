// `contest run` against faults, hangs and planted links, through the real
// binary: what a user (or an attacker with a symlink, or the OOM killer, or
// a full disk) meets: the run loop's half.
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "contest/history/history_db.h"
#include "contest/run/record/result_writer.h"
#include "contest/sys/atomic_file.h"
#include "test_helpers.h"

using namespace contest;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

namespace fs = std::filesystem;

// Anything but the finished result files: temp files, write checks.
std::vector<fs::path> other_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec))
        // The results database and the run's journal are meant to be there
        // (the database's -wal and -shm files, left by a connection not
        // closed, are not).
        if (it->is_regular_file() && it->path().extension() != ".json" &&
            it->path().extension() != ".run-journal" &&
            it->path().filename() != contest::history::kDefaultDbFile)
            out.push_back(it->path());
    return out;
}

std::vector<std::string> args_for(const test::ScratchDir& dir, const std::string& label,
                                  std::vector<std::string> more) {
    std::vector<std::string> a{"run",
                               "-k",
                               label,
                               "--workdir",
                               (dir / "work").string(),
                               "--results",
                               (dir / "results").string(),
                               "--quiet",
                               "-w",
                               "command"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

// The result file's runs once it holds at least n, polling; null on timeout.
json wait_for_runs(const fs::path& results, std::size_t n, std::chrono::milliseconds limit = 20s) {
    for (auto until = std::chrono::steady_clock::now() + limit;
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(20ms)) {
        auto files = test::result_files(results);
        if (files.empty()) continue;
        try {
            json j = json::parse(test::slurp(files[0]));
            if (j["runs"].size() >= n) return j;
        } catch (...) {
        }
    }
    return nullptr;
}

std::size_t loads_entries(const test::ScratchDir& dir) {
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir / "work" / "loads", ec); !ec && it != fs::end(it);
         it.increment(ec))
        ++n;
    return n;
}

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

// The processes of contest pid's loads: its children running contest's own
// image, less its guardian (which stays outside the runs' cgroup).
std::vector<pid_t> load_processes(pid_t contest) {
    std::vector<pid_t> out;
    const std::string leaf = "/contest-" + std::to_string(contest) + "\n";
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string stat = test::slurp(e.path() / "stat");
        auto close = stat.rfind(')');
        if (close == std::string::npos || stat.find("(contest)") == std::string::npos) continue;
        std::istringstream in(stat.substr(close + 2));
        char state;
        pid_t ppid = 0;
        in >> state >> ppid;
        if (ppid != contest) continue;
        const std::string cg = test::slurp(e.path() / "cgroup");
        if (cg.find("/contest-") != std::string::npos && cg.find(leaf) == std::string::npos)
            continue;  // the guardian
        out.push_back(std::stoi(name));
    }
    return out;
}

}  // namespace

TEST_CASE("planted links in the workdir are never followed", "[robust-run][e2e]") {
    test::ScratchDir dir("robust-links");
    fs::create_directories(dir / "work");
    fs::create_directories(dir / "outside");
    write_file(dir / "outside" / "canary", "canary\n");

    SECTION("command.log -> a file outside: refused, the file untouched") {
        fs::create_symlink(dir / "outside" / "canary", dir / "work" / "command.log");
        auto o = test::run_contest_binary(
            args_for(dir, "links", {"--workload-cmd", "echo overwritten", "-n", "1", "no_load"}),
            dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("command.log") != std::string::npos);
        CHECK(o.err.find("symbolic link") != std::string::npos);
        CHECK(test::slurp(dir / "outside" / "canary") == "canary\n");
        CHECK(test::result_files(dir / "results").empty());
    }
    SECTION("loads -> a folder outside: refused, nothing written or deleted there") {
        fs::create_symlink(dir / "outside", dir / "work" / "loads");
        auto o = test::run_contest_binary(
            args_for(dir, "links",
                     {"--workload-cmd", "true", "-n", "1", "--warmup", "0.2", "cpu_load"}),
            dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("loads") != std::string::npos);
        CHECK(test::slurp(dir / "outside" / "canary") == "canary\n");
        std::size_t entries = 0;
        for ([[maybe_unused]] auto& e : fs::directory_iterator(dir / "outside")) ++entries;
        CHECK(entries == 1);
    }
    SECTION("a workdir others can write to is refused, naming it and why") {
        fs::permissions(dir / "work", fs::perms::all);
        auto o = test::run_contest_binary(
            args_for(dir, "links", {"--workload-cmd", "true", "-n", "1", "no_load"}), dir.path());
        CHECK(o.exit_code == 3);
        CHECK(o.err.find((dir / "work").string()) != std::string::npos);
        CHECK(o.err.find("writable by its group or others") != std::string::npos);
    }
    SECTION("a workdir owned by another user is refused, naming it and why") {
        REQUIRE(::chown((dir / "work").c_str(), 65534, 65534) == 0);
        auto o = test::run_contest_binary(
            args_for(dir, "links", {"--workload-cmd", "true", "-n", "1", "no_load"}), dir.path());
        CHECK(o.exit_code == 3);
        CHECK(o.err.find((dir / "work").string()) != std::string::npos);
        CHECK(o.err.find("owned by uid 65534") != std::string::npos);
    }
    SECTION("a workdir that is another user's link is refused; one of this user's is followed") {
        fs::remove_all(dir / "work");
        fs::create_symlink(dir / "outside", dir / "work");
        REQUIRE(::lchown((dir / "work").c_str(), 65534, 65534) == 0);
        auto o = test::run_contest_binary(
            args_for(dir, "links", {"--workload-cmd", "true", "-n", "1", "no_load"}), dir.path());
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("symbolic link owned by uid 65534") != std::string::npos);
        std::size_t entries = 0;
        for ([[maybe_unused]] auto& e : fs::directory_iterator(dir / "outside")) ++entries;
        CHECK(entries == 1);  // the canary alone: nothing made there

        REQUIRE(::lchown((dir / "work").c_str(), ::geteuid(), ::getegid()) == 0);
        o = test::run_contest_binary(
            args_for(dir, "links", {"--workload-cmd", "true", "-n", "1", "no_load"}), dir.path());
        INFO(o.err);
        CHECK(o.exit_code == 0);
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --timeout stops a hung workload, records timed_out, shows >S and goes on",
          "[robust-run][e2e]") {
    test::ScratchDir dir("robust-timeout");
    auto started = std::chrono::steady_clock::now();
    auto o = test::run_contest_binary(
        args_for(dir, "timeout",
                 {"--workload-cmd", "sleep 5", "-n", "1", "--timeout", "1", "--warmup", "0.2",
                  "--order", "rounds", "no_load", "cpu_load"}),
        dir.path());
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(o.err << o.out);
    CHECK(o.exit_code == 1);  // runs failed
    CHECK(took < 8);          // two 5 s sleeps would take 10
    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    json j = json::parse(test::slurp(files[0]));
    REQUIRE(j["runs"].size() == 2);  // the suite went on to cpu_load
    for (const auto& r : j["runs"]) {
        CHECK(r["status"] == "timed_out");
        CHECK(r["wall_s"].get<double>() >= 1.0);
        CHECK(r["wall_s"].get<double>() < 4.0);
    }
    CHECK(j["config"]["timeout_s"] == 1.0);
    CHECK(o.out.find(">1") != std::string::npos);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("with no --timeout, a run past 3x the longest finished one warns once, off a terminal",
          "[robust-run][e2e]") {
    test::ScratchDir dir("robust-hang");
    // Run 1 is quick; run 2 (the file `slow` exists by then) takes 2.5 s.
    auto o = test::run_contest_binary(
        args_for(dir, "hang",
                 {"--workload-cmd", "sh -c 'test -e slow && sleep 2.5; touch slow'", "-n", "2",
                  "no_load"}),
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    const auto at = o.err.find("over 3x the longest finished run");
    CHECK(at != std::string::npos);
    CHECK(o.err.find("over 3x the longest finished run", at + 1) == std::string::npos);
    CHECK(o.err.find("--timeout") != std::string::npos);
}

TEST_CASE("contest killed with SIGKILL leaves nothing running, the next start cleans up",
          "[robust-run][e2e]") {
    test::ScratchDir dir("robust-kill");
    pid_t pid = test::start_contest(args_for(dir, "kill",
                                             {"--workload-cmd", "sh -c 'sleep 60 & sleep 60'", "-n",
                                              "1", "--warmup", "0.2", "cpu_load"}),
                                    dir.path());
    // The workload runs once command.log exists and the warm-up is over.
    for (int i = 0; i < 200 && !fs::exists(dir / "work" / "command.log"); ++i)
        std::this_thread::sleep_for(20ms);
    std::this_thread::sleep_for(1000ms);
    CHECK(loads_entries(dir) > 0);
    ::kill(pid, SIGKILL);
    auto o = test::finish_contest(pid, dir.path());
    CHECK(o.exit_code == 128 + SIGKILL);
    // Including the workload's grandchild (`sleep 60 &`), which no
    // parent-death signal reaches.
    CHECK(test::leftover_processes().empty());
    CHECK(loads_entries(dir) > 0);  // its load folder and marker, left
    // A half-written result file of a contest that is gone (a reaped child's pid).
    pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ::waitpid(gone, nullptr, 0);
    fs::create_directories(dir / "results" / "kill");
    const auto stale = dir / "results" / "kill" / ("x.json.tmp." + std::to_string(gone));
    write_file(stale, "{");
    // And a half-written run journal of it.
    const auto stale_journal =
        dir / "results" / "kill" / ("x.run-journal.tmp." + std::to_string(gone));
    write_file(stale_journal, "{");

    auto next = test::run_contest_binary(
        args_for(dir, "kill", {"--workload-cmd", "true", "-n", "1", "no_load"}), dir.path());
    INFO(next.err);
    CHECK(next.exit_code == 0);
    CHECK(next.err.find("removed what a killed contest left") != std::string::npos);
    CHECK(next.err.find("cpu_load." + std::to_string(pid)) != std::string::npos);
    CHECK(loads_entries(dir) == 0);
    CHECK(!fs::exists(stale));
    CHECK(!fs::exists(stale_journal));
    CHECK(next.err.find(stale.string()) != std::string::npos);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a full results file system after the first run keeps that run", "[robust-run][e2e]") {
    test::ScratchDir dir("robust-full");
    fs::create_directories(dir / "results");
    if (::mount("tmpfs", (dir / "results").c_str(), "tmpfs", 0, "size=256k,mode=0755") != 0)
        CONTEST_SKIP("cannot mount a tmpfs (needs root): " << std::strerror(errno));
    struct Unmount {
        fs::path p;
        ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{dir / "results"};
    // No results database: its file would sit in the same file system, and
    // the test fills it as soon as the first run is in its result file,
    // which can be before the database is made; the database's making then
    // fails and gives back what it had taken, and the runs after fit in it.
    pid_t pid = test::start_contest(
        args_for(dir, "full",
                 {"--workload-cmd", "sleep 0.5", "-n", "3", "--no-history", "no_load"}),
        dir.path());
    json first = wait_for_runs(dir / "results", 1);
    REQUIRE(!first.is_null());
    {
        // Fill what is left of the file system.
        std::ofstream filler(dir / "results" / "filler", std::ios::binary);
        std::string block(4096, 'x');
        while (filler.write(block.data(), block.size()) && filler.flush()) {
        }
    }
    auto o = test::finish_contest(pid, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK(o.err.find("No space left on device") != std::string::npos);
    CHECK(o.out.find("no_load") != std::string::npos);  // the table of what finished
    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    json kept = json::parse(test::slurp(files[0]));
    CHECK(kept["runs"].size() >= 1);
    CHECK(kept["complete"] == false);
    CHECK(test::leftover_processes().empty());
}

namespace {

// A `contest run` with `args` interrupted (SIGINT) after its first run: the
// path of the incomplete result file it left.
fs::path interrupted_after_first_run(const test::ScratchDir& dir,
                                     const std::vector<std::string>& args) {
    pid_t pid = test::start_contest(args_for(dir, "resume", args), dir.path());
    REQUIRE(!wait_for_runs(dir / "results", 1).is_null());
    ::kill(pid, SIGINT);
    CHECK(test::finish_contest(pid, dir.path()).exit_code == 130);
    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    return files[0];
}

// `contest run --quiet --resume X`: the resumed run's words, none but X.
std::vector<std::string> resume_args(const fs::path& x) {
    return {"run", "--quiet", "--resume", x.string()};
}

// The run's journal beside its result file (STAMP.json: STAMP.run-journal).
fs::path journal_of(const fs::path& result) {
    return fs::path(result).replace_extension(".run-journal");
}

// Each run of a result file by its load and index.
using RunKeys = std::multiset<std::pair<std::string, int>>;
RunKeys run_keys(const json& file) {
    RunKeys keys;
    for (const auto& r : file["runs"]) keys.emplace(r["load"].get<std::string>(), r["index"]);
    return keys;
}

// The result file after `contest run --resume FILE` (no other word) ended
// well and marked it complete.
json resumed_file(const test::ScratchDir& dir, const fs::path& file) {
    auto o = test::run_contest_binary(resume_args(file), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    json after = json::parse(test::slurp(file));
    CHECK(after["complete"] == true);
    return after;
}

// The journal's JSON changed by `change`, written back (its text kept to put back).
std::string changed_journal(const fs::path& result, const std::function<void(json&)>& change) {
    const std::string text = test::slurp(journal_of(result));
    json j = json::parse(text);
    change(j);
    std::ofstream(journal_of(result)) << j.dump(2);
    return text;
}

}  // namespace

TEST_CASE("run --resume continues an interrupted result file from its journal, no word given",
          "[robust-run][resume][e2e]") {
    test::ScratchDir dir("robust-resume");
    const std::vector<std::string> common{"--workload-cmd", "sleep 0.6", "-n",     "3",
                                          "--seed",         "7",         "no_load"};
    const std::vector<fs::path> files{interrupted_after_first_run(dir, common)};
    json before = json::parse(test::slurp(files[0]));
    REQUIRE(before["complete"] == false);
    const std::size_t done = before["runs"].size();
    REQUIRE(done >= 1);
    REQUIRE(done < 3);
    // The journal beside the file: the run's config and its plan, the
    // turns taken so far done.
    const json journal = json::parse(test::slurp(journal_of(files[0])));
    CHECK(journal["config"]["runs"] == 3);
    CHECK(journal["config"]["seed"] == 7);
    REQUIRE(journal["turns"].size() == 3);
    CHECK(journal["turns"][0]["status"] == "done");
    CHECK(journal["turns"][2]["status"] == "pending");

    // The run's words beside --resume: refused, the journal holds the run.
    auto words = test::run_contest_binary(
        {"run", "--resume", files[0].string(), "-n", "4", "--seed", "7", "no_load"}, dir.path());
    CHECK(words.exit_code == 2);
    CHECK(words.err.starts_with("contest: --resume goes alone (the journal holds the run): "));
    CHECK(std::count(words.err.begin(), words.err.end(), '\n') == 1);
    // A journal whose config is not the one the file recorded: refused,
    // naming the first field that differs.
    const std::string kept = changed_journal(files[0], [](json& j) { j["config"]["runs"] = 4; });
    auto bad = test::run_contest_binary(resume_args(files[0]), dir.path());
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("runs: recorded 3, now 4") != std::string::npos);
    std::ofstream(journal_of(files[0])) << kept;

    auto o = test::run_contest_binary(resume_args(files[0]), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(test::result_files(dir / "results").size() == 1);
    json after = json::parse(test::slurp(files[0]));
    CHECK(after["complete"] == true);
    REQUIRE(after["runs"].size() == 3);
    std::set<int> indexes;
    for (const auto& r : after["runs"]) indexes.insert(r["index"].get<int>());
    CHECK(indexes == std::set<int>{1, 2, 3});
    CHECK(after["runs"][0] == before["runs"][0]);  // the finished run kept as it was
    CHECK(after["started_at"] == before["started_at"]);
    // The journal stays as the run's record, every turn done; a finished
    // run is not resumed, by its file or by its journal.
    const json finished = json::parse(test::slurp(journal_of(files[0])));
    for (const auto& turn : finished["turns"]) CHECK(turn["status"] == "done");
    for (const fs::path& x : {files[0], journal_of(files[0])}) {
        auto again = test::run_contest_binary(resume_args(x), dir.path());
        CHECK(again.exit_code == 2);
        CHECK(again.err == "contest: --resume " + files[0].string() +
                               ": this result file is complete; there is nothing to resume\n");
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --resume of a --latency run keeps its plan and its calibration",
          "[robust-run][resume][latency][e2e]") {
    test::ScratchDir dir("robust-resume-latency");
    const std::vector<std::string> common{
        "--workload-cmd", "sleep 0.6",    "-n",     "3", "--seed", "7",
        "--latency",      "audio,cyclic", "no_load"};
    const std::vector<fs::path> files{interrupted_after_first_run(dir, common)};
    json before = json::parse(test::slurp(files[0]));
    REQUIRE(before["complete"] == false);
    REQUIRE(before["config"]["latency"].contains("calibration"));

    // Another probe list is another experiment: a journal that says one is
    // refused against the file's.
    const std::string kept = changed_journal(files[0], [](json& j) {
        json& probes = j["config"]["latency_probes"];
        REQUIRE(probes.size() == 2);
        probes.erase(0);
    });
    auto bad = test::run_contest_binary(resume_args(files[0]), dir.path());
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("latency.probes") != std::string::npos);
    std::ofstream(journal_of(files[0])) << kept;

    auto o = test::run_contest_binary(resume_args(files[0]), dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    json after = json::parse(test::slurp(files[0]));
    CHECK(after["complete"] == true);
    REQUIRE(after["runs"].size() == 3);
    // The calibration is the recorded one, not a new one: every audio period
    // of the file asked for the same work.
    CHECK(after["config"]["latency"] == before["config"]["latency"]);
    for (const auto& r : after["runs"]) {
        REQUIRE(r.contains("latency"));
        const json& work = r["latency"]["audio"]["work"];
        CHECK(work["calibration"] == after["config"]["latency"]["calibration"]);
        CHECK(work["chunks_per_period"] ==
              after["runs"][0]["latency"]["audio"]["work"]["chunks_per_period"]);
        CHECK(r["latency"]["cyclic"]["latency"]["samples"].get<std::uint64_t>() > 100);
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --resume runs the journal's config alone: its --config file gone, from another folder",
    "[robust-run][resume][e2e]") {
    test::ScratchDir dir("robust-resume-alone");
    fs::create_directories(dir / "start");
    fs::create_directories(dir / "elsewhere");
    // The run's options in a --config file, its folders relative to where
    // it was started.
    const fs::path config = dir / "start" / "run.conf";
    std::ofstream(config) << "label = alone\nworkload = command\nworkload-cmd = sleep 0.6\n"
                             "runs = 3\nresults = results\nworkdir = work\nwarmup = 0.2\n"
                             "load = no_load,cpu_load\n";
    pid_t pid = test::start_contest({"run", "--quiet", "--config", config.string()}, dir.path(),
                                    dir / "start");
    REQUIRE(!wait_for_runs(dir / "start" / "results", 2).is_null());
    ::kill(pid, SIGINT);
    CHECK(test::finish_contest(pid, dir.path()).exit_code == 130);
    const auto files = test::result_files(dir / "start" / "results");
    REQUIRE(files.size() == 1);
    const std::size_t before = json::parse(test::slurp(files[0]))["runs"].size();
    REQUIRE(before < 6);
    // The config file made unreadable as a config, and the resume started
    // in another folder: neither is read again.
    std::ofstream(config) << "runs = 1\nnot an option\n";
    auto o = test::run_contest_binary(resume_args(files[0]), dir.path(), dir / "elsewhere");
    INFO(o.err);
    CHECK(o.exit_code == 0);
    const json after = json::parse(test::slurp(files[0]));
    CHECK(after["complete"] == true);
    CHECK(after["label"] == "alone");
    REQUIRE(after["runs"].size() == 6);
    std::set<std::pair<std::string, int>> runs;
    for (const auto& r : after["runs"]) {
        runs.emplace(r["load"].get<std::string>(), r["index"].get<int>());
        CHECK(r["status"] == "ok");
    }
    CHECK(runs.size() == 6);  // each planned run once
    // Nothing made where the resume was started; the workdir is the start's.
    CHECK(fs::is_empty(dir / "elsewhere"));
    CHECK(fs::exists(dir / "start" / "work" / "command.log"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --resume after a SIGKILL mid-run takes every planned run once",
          "[robust-run][resume][e2e]") {
    test::ScratchDir dir("robust-resume-kill");
    const std::vector<std::string> common{"--workload-cmd", "sleep 0.4", "-n",      "3",
                                          "--warmup",       "0.2",       "no_load", "cpu_load"};
    pid_t pid = test::start_contest(args_for(dir, "killed", common), dir.path());
    REQUIRE(!wait_for_runs(dir / "results", 3).is_null());
    ::kill(pid, SIGKILL);
    CHECK(test::finish_contest(pid, dir.path()).exit_code == 128 + SIGKILL);
    const auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    const json before = json::parse(test::slurp(files[0]));
    CHECK(before["complete"] == false);
    REQUIRE(before["runs"].size() < 6);
    // The turn the kill cut short is marked started (or its round done).
    const json journal = json::parse(test::slurp(journal_of(files[0])));
    CHECK(journal["turns"][0]["status"] == "done");

    const json after = resumed_file(dir, files[0]);
    CHECK(run_keys(after) == RunKeys{{"cpu_load", 1},
                                     {"cpu_load", 2},
                                     {"cpu_load", 3},
                                     {"no_load", 1},
                                     {"no_load", 2},
                                     {"no_load", 3}});
    for (std::size_t i = 0; i < before["runs"].size(); ++i)
        CHECK(after["runs"][i] == before["runs"][i]);  // what finished kept as it was
    const json finished = json::parse(test::slurp(journal_of(files[0])));
    REQUIRE(finished["turns"].size() == 3);  // a turn a round: its two loads
    for (const auto& turn : finished["turns"]) CHECK(turn["status"] == "done");
    CHECK(loads_entries(dir) == 0);  // what the kill left, removed
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --resume of an --order blocks run takes each load's runs once",
          "[robust-run][resume][e2e]") {
    // Under blocks, round 1 is a turn of each load: each marked on its own.
    test::ScratchDir dir("robust-resume-blocks");
    pid_t pid = test::start_contest(args_for(dir, "blocks",
                                             {"--workload-cmd", "sleep 0.4", "-n", "2", "--order",
                                              "blocks", "--warmup", "0.2", "no_load", "cpu_load"}),
                                    dir.path());
    REQUIRE(!wait_for_runs(dir / "results", 2).is_null());
    ::kill(pid, SIGINT);
    CHECK(test::finish_contest(pid, dir.path()).exit_code == 130);
    const auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    const std::size_t before = json::parse(test::slurp(files[0]))["runs"].size();
    REQUIRE(before < 4);
    const json journal = json::parse(test::slurp(journal_of(files[0])));
    std::size_t done = 0;
    for (const auto& turn : journal["turns"]) done += turn["status"] == "done";
    // A turn a run here: each one done once its run was saved (the last
    // saved may have been cut off before its mark), none done before.
    CHECK(done <= before);
    CHECK(done + 1 >= before);
    CHECK(run_keys(resumed_file(dir, files[0])) ==
          RunKeys{{"cpu_load", 1}, {"cpu_load", 2}, {"no_load", 1}, {"no_load", 2}});
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --resume refuses in one line what is no run's journal, or no journal",
          "[robust-run][resume][e2e]") {
    test::ScratchDir dir("robust-resume-refused");
    const fs::path file =
        interrupted_after_first_run(dir, {"--workload-cmd", "sleep 0.6", "-n", "3", "no_load"});
    const fs::path journal = journal_of(file);
    const std::string text = test::slurp(journal);
    const auto refused = [&](const fs::path& x, int code, const std::string& says) {
        auto o = test::run_contest_binary(resume_args(x), dir.path());
        INFO(o.err);
        CHECK(o.exit_code == code);
        CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
        CHECK(o.err.find(says) != std::string::npos);
        CHECK(test::leftover_processes().empty());
    };
    // Not JSON; a field out of its range; turns of another run's labels.
    std::ofstream(journal) << "{";
    refused(file, 2, journal.string());
    const auto planted = [&](const std::function<void(json&)>& change) {
        json j = json::parse(text);
        change(j);
        std::ofstream(journal) << j.dump(2);
    };
    planted([](json& j) { j["next_turn"] = 99; });
    refused(journal, 2, "next_turn: past the last turn");
    planted([](json& j) { j["turns"][1]["label"] = 1; });
    refused(file, 2, "turns[1]: label: no such label");
    // A round outside the run's 3 (taken, it was saved with index
    // -294967296), and more runs than a start takes.
    planted([](json& j) { j["turns"][1]["round"] = 4000000000u; });
    refused(file, 2, "turns[1]: round: 4000000000 is not one of the run's 3 rounds");
    planted([](json& j) { j["turns"][1]["round"] = 0; });
    refused(file, 2, "turns[1]: round: 0 is not one of the run's 3 rounds");
    planted([](json& j) {
        j["config"]["runs"] = 4000000000u;
        j["turns"][1]["round"] = 4000000000u;
    });
    refused(file, 2, "config: --runs must be at most 1000");
    planted([](json& j) { j["turns"][1]["loads"] = {"no_such_load"}; });
    refused(file, 2, "turns[1]: loads: 'no_such_load' is no load of the run");
    // A label's file named outside the run's results folder: the resume
    // writes nowhere it was not told.
    planted([&](json& j) {
        j["results"].push_back((dir / "elsewhere" / "x.json").string());
        j["turns"][1]["label"] = 1;
    });
    refused(file, 2,
            "results[1]: " + (dir / "elsewhere" / "x.json").string() +
                " is no LABEL/FILE.json in its results folder");
    // The journal of no plan (a bisection's batch config, a guest's turn),
    // and a --boot run's: not resumed.
    planted([](json& j) {
        j.erase("turns");
        j.erase("next_turn");
        j.erase("results");
    });
    refused(file, 2, "the journal plans no turns of its own");
    planted([](json& j) {
        j["boot"] = {{"method", "kexec"},   {"boot_max", 0}, {"stop_on_failure", false},
                     {"keep_built", false}, {"root", "/"},   {"then", json::array()}};
    });
    refused(file, 2, "the journal is a --boot run's, which goes on by itself");
    // A link where the journal is: not followed.
    std::ofstream(dir / "copy.run-journal") << text;
    fs::remove(journal);
    fs::create_symlink(dir / "copy.run-journal", journal);
    refused(file, 2, "link");
    // No journal beside the file (a contest before journals wrote it).
    fs::remove(journal);
    refused(file, 2, "it has no run journal beside it");
    // Not a contest result.
    std::ofstream(dir / "notes.json") << "{\"hello\": 1}\n";
    refused(dir / "notes.json", 2, "notes.json");
    // The file untouched through all of it.
    CHECK(json::parse(test::slurp(file))["runs"].size() >= 1);
    CHECK(json::parse(test::slurp(file))["complete"] == false);
}

TEST_CASE("a run's journal takes its name with its result file's: made once, a taken name skipped",
          "[robust-run][resume]") {
    test::ScratchDir dir("journal-names");
    const std::string at = "2026-12-06T04:00:00Z";
    const fs::path first = new_result_path(dir.path(), "L", at);
    CHECK(first == dir / "L" / "2026-12-06T040000Z.json");
    CHECK(run_journal_beside(first) == dir / "L" / "2026-12-06T040000Z.run-journal");
    CHECK(result_beside_journal(run_journal_beside(first)) == first);
    // Made once: a second maker learns the name is taken, and the first's
    // file stays as it was, no temporary left.
    REQUIRE(create_file_atomically(run_journal_beside(first), "one"));
    CHECK_FALSE(create_file_atomically(run_journal_beside(first), "two"));
    CHECK(test::slurp(run_journal_beside(first)) == "one");
    CHECK(std::distance(fs::directory_iterator(dir / "L"), fs::directory_iterator()) == 1);
    // A name whose journal is there is not given to a new file (its result
    // file is not made yet: the run has not finished its first run).
    CHECK(new_result_path(dir.path(), "L", at) == dir / "L" / "2026-12-06T040000Z-2.json");
}

TEST_CASE("two runs started together into one results folder keep a file and a journal each",
          "[robust-run][resume][e2e]") {
    test::ScratchDir dir("journal-together");
    const auto args =
        args_for(dir, "together", {"--workload-cmd", "sleep 0.3", "-n", "2", "no_load"});
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    const pid_t a = test::start_contest(args, dir / "a");
    const pid_t b = test::start_contest(args, dir / "b");
    CHECK(test::finish_contest(a, dir / "a").exit_code == 0);
    CHECK(test::finish_contest(b, dir / "b").exit_code == 0);
    const auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 2);
    for (const auto& file : files) {
        INFO(file);
        const json result = json::parse(test::slurp(file));
        CHECK(result["runs"].size() == 2);
        CHECK(result["complete"] == true);
        // Its own journal beside it, every turn done.
        const json journal = json::parse(test::slurp(journal_of(file)));
        CHECK(journal["started_at"] == result["started_at"]);
        for (const auto& turn : journal["turns"]) CHECK(turn["status"] == "done");
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a load killed from outside marks its run load_failed and the suite goes on",
          "[robust-run][e2e]") {
    test::ScratchDir dir("robust-loadkill");
    pid_t pid = test::start_contest(
        args_for(dir, "loadkill",
                 {"--workload-cmd", "sleep 2", "-n", "2", "--warmup", "0.2", "cpu_load"}),
        dir.path());
    for (int i = 0; i < 200 && !fs::exists(dir / "work" / "command.log"); ++i)
        std::this_thread::sleep_for(20ms);
    std::this_thread::sleep_for(700ms);
    auto loads = load_processes(pid);
    REQUIRE(!loads.empty());
    for (pid_t p : loads) ::kill(p, SIGKILL);
    auto o = test::finish_contest(pid, dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    json j = json::parse(test::slurp(files[0]));
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"] == "load_failed");
    CHECK(j["runs"][0]["reason"].get<std::string>().find("signal 9") != std::string::npos);
    CHECK(j["runs"][1]["status"] == "ok");
    CHECK(j["complete"] == true);
    CHECK(loads_entries(dir) == 0);
    CHECK(test::leftover_processes().empty());
}

namespace {

enum class Moment { prepare, warm_up, mid_workload, between_runs, saving };

const char* moment_name(Moment m) {
    switch (m) {
        case Moment::prepare:
            return "prepare";
        case Moment::warm_up:
            return "warm-up";
        case Moment::mid_workload:
            return "mid-workload";
        case Moment::between_runs:
            return "between runs";
        case Moment::saving:
            return "while saving";
    }
    return "?";
}

// How each moment is reached: the command workload's own steps made slow
// where the moment is, and the signal sent once contest is there.
std::vector<std::string> moment_args(Moment m) {
    switch (m) {
        case Moment::prepare:  // a slow --prepare-cmd, signalled 0.5 s in
            return {"--prepare-cmd", "sleep 10", "--workload-cmd", "true", "--warmup", "0.2"};
        case Moment::warm_up:  // a long --warmup, signalled 1 s in
            return {"--workload-cmd", "true", "--warmup", "10"};
        case Moment::mid_workload:  // 0.4 s into run 2 of `sleep 1.5`
            return {"--workload-cmd", "sleep 1.5", "--warmup", "0.2"};
        case Moment::between_runs:  // run 1 saved, run 2 in its slow --clean-cmd
            return {"--workload-cmd", "true", "--clean-cmd", "sleep 1", "--warmup", "0.2"};
        case Moment::saving:  // the moment a result file's temp file is created (inotify)
            return {"--workload-cmd", "true", "--warmup", "0.2", "--order", "blocks"};
    }
    return {};
}

// Waits for the temp file of a result file's save to appear in the label's
// results folder (not the run's journal's: STAMP.run-journal.tmp.PID).
bool wait_for_save(const fs::path& folder) {
    for (int i = 0; i < 500 && !fs::exists(folder); ++i) std::this_thread::sleep_for(5ms);
    int fd = ::inotify_init1(IN_CLOEXEC);
    if (fd < 0 || ::inotify_add_watch(fd, folder.c_str(), IN_CREATE) < 0) return false;
    alignas(inotify_event) char buf[4096];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        for (char* p = buf; p < buf + n;) {
            auto* e = reinterpret_cast<inotify_event*>(p);
            if (e->len && std::string(e->name).find(".json.tmp.") != std::string::npos) {
                ::close(fd);
                return true;
            }
            p += sizeof(inotify_event) + e->len;
        }
    }
    ::close(fd);
    return false;
}

}  // namespace

TEST_CASE("fault matrix: SIGINT, SIGTERM, SIGHUP at five moments keep every finished run",
          "[robust-run][e2e]") {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        for (Moment m : {Moment::prepare, Moment::warm_up, Moment::mid_workload,
                         Moment::between_runs, Moment::saving}) {
            test::ScratchDir dir("robust-matrix");
            INFO(strsignal(sig) << " at " << moment_name(m));
            auto more = moment_args(m);
            for (std::string a : {"-n", "3", "cpu_load"}) more.push_back(a);
            pid_t pid = test::start_contest(args_for(dir, "matrix", more), dir.path());
            std::size_t seen = 0;  // finished runs seen saved before the signal
            REQUIRE(test::wait_until_catching(pid, sig));
            switch (m) {
                case Moment::prepare:
                    std::this_thread::sleep_for(500ms);
                    break;
                case Moment::warm_up:
                    std::this_thread::sleep_for(1000ms);
                    break;
                case Moment::mid_workload:
                    REQUIRE(!wait_for_runs(dir / "results", 1).is_null());
                    seen = 1;
                    std::this_thread::sleep_for(400ms);
                    break;
                case Moment::between_runs:
                    REQUIRE(!wait_for_runs(dir / "results", 1).is_null());
                    seen = 1;
                    break;
                case Moment::saving:
                    REQUIRE(wait_for_save(dir / "results" / "matrix"));
                    seen = 1;  // the save under way holds run 1
                    break;
            }
            ::kill(pid, sig);
            auto o = test::finish_contest(pid, dir.path());
            INFO(o.err);
            CHECK(o.exit_code == 130);
            auto files = test::result_files(dir / "results");
            if (seen == 0) {
                CHECK(files.empty());  // no file with 0 runs
            } else {
                REQUIRE(files.size() == 1);
                json j = json::parse(test::slurp(files[0]));  // valid JSON
                CHECK(j["runs"].size() >= seen);
                CHECK(j["complete"] == false);
                for (const auto& r : j["runs"]) CHECK(r["status"] == "ok");
            }
            CHECK(other_files(dir / "results").empty());  // no temp file left
            CHECK(loads_entries(dir) == 0);
            CHECK(test::leftover_processes().empty());
        }
    }
}
