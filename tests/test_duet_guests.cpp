// --duet (issue 59): a round's guests at once, each QEMU pinned to host CPUs
// of its own, the sets passed from label to label round by round, and each
// run started in every guest together through the start barrier. The
// guests here are a stand-in for qemu-system-x86_64 on PATH, which boots
// nothing: it records the CPUs it (and every thread of it) is allowed, says
// it is up on its console and runs the guest's contest on this host, from
// the turn's journal with the guest's paths moved into its share. So the
// host's side (pinning, the barrier, the records, the clean-up) and the
// guest's side (the wait before each run) are the real code, with no TCG.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"
#include "contest/run/places/guests/duet_cpus.h"
#include "contest/run/rounds/start_barrier.h"
#include "contest/sys/cpu_affinity.h"
#include "contest/sys/errors.h"
#include "stand_in_qemu.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& path) {
    std::ofstream(path, std::ios::binary) << "";
}

// The words of a --kernel run of labels a and b (the same fake kernel) in
// stand-in guests, whose workload appends "CONSOLE TIME" to `starts` as it
// starts.
std::vector<std::string> stand_in_run(const fs::path& dir, const fs::path& starts, unsigned vm_cpus,
                                      unsigned rounds) {
    const fs::path image = dir / "vmlinuz-6.99.0-duet";
    test::put_file(image, test::fake_bzimage("6.99.0-duet (t@h) #1 SMP"));
    return {"run", "--kernel", "a=" + image.string(), "--kernel", "b=" + image.string(), "--duet",
            "--vm-cpus", std::to_string(vm_cpus), "--vm-accel", "tcg", "--vm-disk", "64", "-w",
            "command", "--workload-cmd",
            // Long enough for cpu_load to do work in it, as its run's end checks
            // under --warmup 0, however busy the machine.
            "sh -c 'echo \"$DUET_GUEST $(date +%s.%N)\" >> " + starts.string() + "; sleep 0.5'",
            "--warmup", "0", "--timeline-hz", "0", "--no-drop-caches", "-n", std::to_string(rounds),
            "--seed", "5", "--workdir", (dir / "work").string(), "--results",
            (dir / "results").string(), "no_load", "cpu_load"};
}

ResultFile only_file(const fs::path& results, const std::string& label) {
    std::vector<std::string> bad;
    auto files = read_result_paths({results / label}, bad);
    INFO(label << ": " << bad.size() << " unreadable");
    REQUIRE(files.size() == 1);
    return files.front();
}

// Lines "WORD REST..." of a file, by their first word.
std::multimap<std::string, std::string> lines_by_first_word(const fs::path& path) {
    std::multimap<std::string, std::string> out;
    std::istringstream in(test::slurp(path));
    std::string line;
    while (std::getline(in, line)) {
        const auto space = line.find(' ');
        out.emplace(line.substr(0, space),
                    space == std::string::npos ? "" : line.substr(space + 1));
    }
    return out;
}

}  // namespace

TEST_CASE("duet CPU sets: disjoint sets of --vm-cpus each, or why not in one line", "[duet]") {
    const DuetCpus two = plan_duet_cpus({0, 1, 2, 3, 6}, 2, 2);
    CHECK(two.why_not.empty());
    CHECK(two.sets == std::vector<std::vector<int>>{{0, 1}, {2, 3}});

    const DuetCpus three = plan_duet_cpus({0, 1, 2}, 3, 1);
    CHECK(three.sets == std::vector<std::vector<int>>{{0}, {1}, {2}});

    const DuetCpus none = plan_duet_cpus({0, 1}, 2, 2);
    CHECK(none.sets.empty());
    CHECK(none.why_not ==
          "2 guests of 2 CPUs (--vm-cpus) need 4 host CPUs side by side, and contest may use 2 "
          "here (0-1)");
    CHECK(cpu_list_text({0, 1, 2, 4, 6, 7}) == "0-2,4,6-7");
}

TEST_CASE("duet CPU sets pass from label to label: each label has each set once a block of rounds",
          "[duet]") {
    for (const std::size_t labels : {2u, 3u, 4u}) {
        INFO(labels << " labels");
        std::set<std::vector<std::size_t>> rounds_seen;
        for (unsigned block = 0; block < 6; ++block) {
            std::vector<std::set<std::size_t>> had(labels);
            for (unsigned k = 1; k <= labels; ++k) {
                const unsigned round = block * static_cast<unsigned>(labels) + k;
                const auto sets = duet_sets_of_round(round, labels, 11);
                // One set a label, none shared.
                CHECK(std::set<std::size_t>(sets.begin(), sets.end()).size() == labels);
                for (std::size_t v = 0; v < labels; ++v) had[v].insert(sets[v]);
                rounds_seen.insert(sets);
                CHECK(duet_sets_of_round(round, labels, 11) == sets);  // from the seed alone
            }
            for (std::size_t v = 0; v < labels; ++v) CHECK(had[v].size() == labels);
        }
        // Every rotation comes up: the blocks' orders are drawn, not fixed.
        CHECK(rounds_seen.size() == labels);
    }
    // Over the blocks, the order of the rotations differs (not a fixed alternation).
    std::set<std::vector<std::size_t>> firsts;
    for (unsigned block = 0; block < 16; ++block)
        firsts.insert(duet_sets_of_round(block * 2 + 1, 2, 3));
    CHECK(firsts.size() == 2);
}

TEST_CASE(
    "the start barrier: released once every guest still running is ready, and planted links, FIFOs "
    "and folders are no ready and are never followed",
    "[duet]") {
    test::ScratchDir dir("duet-barrier");
    const fs::path a = dir / "a", b = dir / "b";
    fs::create_directories(a);
    fs::create_directories(b);
    const fs::path victim = dir / "victim";
    test::put_file(victim, "keep\n");
    StartBarrier barrier({a, b}, 3);

    touch(a / "ready-1");
    barrier.step({false, false});
    CHECK(barrier.releases().empty());
    // b's root plants ready-1 as a link to a regular file, and go-1 as a
    // link to a file of the host's: neither counts, neither is followed.
    fs::create_symlink(victim, b / "ready-1");
    fs::create_symlink(victim, b / "go-1");
    barrier.step({false, false});
    CHECK(barrier.releases().empty());
    CHECK_FALSE(fs::exists(a / "go-1"));

    fs::remove(b / "ready-1");
    touch(b / "ready-1");
    barrier.step({false, false});
    REQUIRE(barrier.releases().size() == 1);
    CHECK(barrier.take_problems().empty());
    CHECK(fs::is_regular_file(fs::symlink_status(a / "go-1")));
    CHECK(fs::is_regular_file(fs::symlink_status(b / "go-1")));  // the link replaced
    CHECK(test::slurp(victim) == "keep\n");                      // and not written through

    // The starts, stamped by the host's clock after go-1.
    touch(a / "started-1");
    touch(b / "started-1");
    barrier.step({false, false});
    const BarrierRelease& first = barrier.releases().front();
    REQUIRE(first.started[0]);
    REQUIRE(first.started[1]);
    CHECK(*first.started[0] >= 0);
    REQUIRE(first.spread_s());
    CHECK(*first.spread_s() >= 0);

    // A FIFO named ready-2 is no ready, and the look does not wait on it (it
    // opens nothing); a folder named go-2 cannot be replaced: said.
    REQUIRE(::mkfifo((b / "ready-2").c_str(), 0600) == 0);
    fs::create_directories(b / "go-2" / "inside");
    touch(a / "ready-2");
    barrier.step({false, false});
    CHECK(barrier.releases().size() == 1);
    // b skips its second run (it failed before its start): its ready-3
    // counts for barrier 2 too.
    fs::remove(b / "ready-2");
    touch(b / "ready-3");
    barrier.step({false, false});
    REQUIRE(barrier.releases().size() == 2);
    const auto problems = barrier.take_problems();
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems.front(), Catch::Contains("go-2"));
    // A guest that ended is out of the barrier: b alone releases 3.
    barrier.step({true, false});
    CHECK(barrier.releases().size() == 3);
    CHECK_FALSE(fs::exists(a / "go-3"));
    CHECK(fs::exists(b / "go-3"));
}

TEST_CASE("the start barrier's guest side: ready, then the wait for go, then started", "[duet]") {
    test::ScratchDir dir("duet-guest-side");
    std::atomic<bool> passed{false};
    std::thread guest([&] {
        wait_at_start_barrier(dir.path(), 4);
        passed = true;
    });
    StartBarrier barrier({dir.path()}, 4);
    // The guest's ready-4 stands for barriers 1 to 4 (it skipped none here,
    // but the host cannot tell): released once it is seen.
    while (barrier.releases().size() < 4) {
        CHECK_FALSE(passed);
        barrier.step({false});
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    guest.join();
    CHECK(passed);
    CHECK(fs::exists(dir / "ready-4"));
    CHECK(fs::exists(dir / "started-4"));
}

TEST_CASE(
    "run --kernel --duet: two guests started together, each pinned to its own CPUs, the sets "
    "swapped between rounds, each run started together, nothing left running",
    "[duet][e2e]") {
    const std::vector<int> allowed = allowed_cpus();
    if (allowed.size() < 2) CONTEST_SKIP("--duet needs 2 CPUs for two guests of 1 CPU");
    test::ScratchDir dir("duet-run");
    const fs::path bin = dir / "bin", pinned = dir / "pinned", starts = dir / "starts";
    // a's guest reaches its runs 2 s after b's: without the barrier, their
    // first runs would start at least that far apart.
    test::put_stand_in_qemu(bin, pinned, "a", 2);
    test::StandInBootEnvironment on_path(bin, dir / "proc");
    const auto o = test::run_contest_binary(stand_in_run(dir.path(), starts, 1, 2), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(test::count_of(o.err, "contest: --duet: each round's 2 guests at once, on host CPUs " +
                                    std::to_string(allowed[0]) + " | " +
                                    std::to_string(allowed[1])) == 1);

    const ResultFile a = only_file(dir / "results", "a"), b = only_file(dir / "results", "b");
    // The rounds of a duet are one round in both files: each round's runs
    // of both labels, every one of them ok.
    for (const ResultFile* f : {&a, &b}) {
        std::map<int, int> runs_of_round;
        for (const auto& r : f->runs) {
            CHECK(r.ok());
            ++runs_of_round[r.round];
        }
        CHECK(runs_of_round == std::map<int, int>{{1, 2}, {2, 2}});
        const auto& duet = f->config["vm"]["duet"];
        CHECK(duet["taken"] == true);
        CHECK(duet["cpu_sets"] ==
              nlohmann::json::array({std::to_string(allowed[0]), std::to_string(allowed[1])}));
        CHECK_THAT(duet["measures"].get<std::string>(), Catch::Contains("latency"));
    }

    // Each round's CPUs, as recorded, and as the stand-in QEMU found them
    // while it ran: its own and every one of its threads'.
    const auto seen = lines_by_first_word(pinned);
    std::map<std::string, std::string> cpus_of_label_round;
    for (const auto& [label, file] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
        const auto& boots = file->config["vm"]["boots"];
        REQUIRE(boots.size() == 2);
        for (const auto& boot : boots) {
            const std::string key =
                std::string(label) + "-" + std::to_string(boot["round"].get<int>());
            const std::string cpus = boot["duet"]["cpus"];
            cpus_of_label_round[key] = cpus;
            CHECK(boot["duet"]["qemu_threads_pinned"].get<int>() >= 1);
            REQUIRE(seen.count("console-" + key) == 1);
            std::istringstream words(seen.find("console-" + key)->second);
            std::string word;
            while (words >> word) {
                INFO("console-" << key << ": " << seen.find("console-" + key)->second);
                CHECK(word == cpus);
            }
            // Its starts: both guests started each run, after go, close together.
            const auto& runs = boot["duet"]["starts"];
            REQUIRE(runs.size() == 2);
            for (const auto& s : runs) {
                INFO(s.dump());
                CHECK(s["guests_started"] == 2);
                // Not before go: a guest that did not wait shows below 0.
                CHECK(s["after_go_s"].get<double>() >= 0);
                CHECK(s["spread_s"].get<double>() < 1.0);
            }
        }
    }
    for (const std::string round : {"1", "2"})
        CHECK(cpus_of_label_round["a-" + round] != cpus_of_label_round["b-" + round]);
    // Passed round to round: each label had each set once.
    CHECK(cpus_of_label_round["a-1"] != cpus_of_label_round["a-2"]);
    CHECK(cpus_of_label_round["b-1"] != cpus_of_label_round["b-2"]);

    // The runs themselves, timed by their workload: each run of a round
    // started in both guests together, though a's came up 2 s late.
    const auto started = lines_by_first_word(starts);
    for (const std::string round : {"1", "2"}) {
        std::vector<double> at_a, at_b;
        for (auto [it, end] = started.equal_range("console-a-" + round); it != end; ++it)
            at_a.push_back(std::stod(it->second));
        for (auto [it, end] = started.equal_range("console-b-" + round); it != end; ++it)
            at_b.push_back(std::stod(it->second));
        REQUIRE(at_a.size() == 2);
        REQUIRE(at_b.size() == 2);
        for (std::size_t k = 0; k < 2; ++k) {
            INFO("round " << round << ", run " << k + 1);
            CHECK(std::abs(at_a[k] - at_b[k]) < 1.0);
        }
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --kernel --duet on too few CPUs: one line says so, and the guests take their turns one "
    "after another",
    "[duet][e2e]") {
    const std::vector<int> allowed = allowed_cpus();
    if (allowed.size() > 64) CONTEST_SKIP("--vm-cpus goes to 64: two such guests fit here");
    test::ScratchDir dir("duet-fallback");
    const fs::path bin = dir / "bin", pinned = dir / "pinned", starts = dir / "starts";
    test::put_stand_in_qemu(bin, pinned, "none", 0);
    test::StandInBootEnvironment on_path(bin, dir / "proc");
    const auto n = static_cast<unsigned>(allowed.size());
    const auto o = test::run_contest_binary(stand_in_run(dir.path(), starts, n, 1), dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    const std::string line =
        "contest: --duet: 2 guests of " + std::to_string(n) + " CPUs (--vm-cpus) need " +
        std::to_string(2 * n) + " host CPUs side by side, and contest may use " +
        std::to_string(n) + " here (" + cpu_list_text(allowed) +
        "): the guests take their turns one after another, as without --duet\n";
    CHECK(test::count_of(o.err, line) == 1);
    CHECK(test::count_of(o.err, "contest: --duet") == 1);
    for (const std::string label : {"a", "b"}) {
        const ResultFile f = only_file(dir / "results", label);
        CHECK(f.config["vm"]["duet"]["taken"] == false);
        CHECK(f.config["vm"]["duet"]["why_not"] ==
              line.substr(std::string("contest: --duet: ").size(),
                          line.find(": the guests") - std::string("contest: --duet: ").size()));
        REQUIRE(f.config["vm"]["boots"].size() == 1);
        CHECK_FALSE(f.config["vm"]["boots"][0].contains("duet"));
        CHECK(f.runs.size() == 2);
        for (const auto& r : f.runs) CHECK(r.ok());
    }
    // Not pinned: each guest may run on every CPU contest may.
    const auto seen = lines_by_first_word(pinned);
    REQUIRE(seen.size() == 2);
    for (const auto& [console, cpus] : seen) {
        INFO(console);
        CHECK(cpus.substr(0, cpus.find(' ')) == cpu_list_text(allowed));
    }
    CHECK(test::leftover_processes().empty());
}

// (No colon in its name: one that comes late sends Catch2's header
// wrapping into a loop when the case fails.)
TEST_CASE("run --kernel --duet stopped while a guest waits at the barrier leaves nothing running",
          "[duet][e2e]") {
    if (allowed_cpus().size() < 2) CONTEST_SKIP("--duet needs 2 CPUs for two guests of 1 CPU");
    test::ScratchDir dir("duet-stopped");
    const fs::path bin = dir / "bin", pinned = dir / "pinned", starts = dir / "starts";
    // a's guest never gets to its runs; b's contest waits for it at the barrier.
    test::put_stand_in_qemu(bin, pinned, "a", 600);
    test::StandInBootEnvironment on_path(bin, dir / "proc");
    const pid_t pid = test::start_contest(stand_in_run(dir.path(), starts, 1, 1), dir.path());
    REQUIRE(test::wait_until_catching(pid, SIGTERM));
    // Both guests started, and b's run is at the barrier (its ready-1 written).
    bool waiting = false;
    for (int i = 0; i < 3000 && !waiting; ++i) {
        // The host makes and removes folders meanwhile: every step with
        // an error code, none thrown.
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(dir / "work", ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
            if (it->path().filename() == "ready-1") waiting = true;
        if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // Stopped whatever the wait found, so that a failure leaves no contest.
    ::kill(pid, SIGTERM);
    const auto o = test::finish_contest(pid, dir.path());
    INFO(o.err);
    REQUIRE(waiting);
    CHECK(lines_by_first_word(pinned).size() == 2);
    CHECK(o.exit_code == 130);
    CHECK(test::leftover_processes().empty());
}

// The words of stand_in_run without --duet, or with it, and --runs-per-boot N.
std::vector<std::string> runs_per_boot_run(const fs::path& dir, const fs::path& starts, bool duet,
                                           unsigned runs_per_boot, unsigned rounds) {
    std::vector<std::string> words = stand_in_run(dir, starts, 1, rounds);
    if (!duet) words.erase(std::find(words.begin(), words.end(), "--duet"));
    words.insert(words.begin() + 1, {"--runs-per-boot", std::to_string(runs_per_boot)});
    return words;
}

// That run in stand-in guests, the guest of label `slow` reaching its runs
// 2 s late: each QEMU's start is a line of dir/booted, each run's of dir/starts.
test::Outcome runs_per_boot_in_stand_ins(const test::ScratchDir& dir, bool duet,
                                         unsigned runs_per_boot, unsigned rounds,
                                         const std::string& slow) {
    test::put_stand_in_qemu(dir / "bin", dir / "booted", slow, 2);
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    return test::run_contest_binary(
        runs_per_boot_run(dir.path(), dir / "starts", duet, runs_per_boot, rounds), dir.path());
}

TEST_CASE(
    "run --kernel --runs-per-boot 3: each guest, booted once a round, takes the loads 3 times, "
    "each run recorded with its boot and its place in it",
    "[duet][runs-per-boot][e2e]") {
    test::ScratchDir dir("runs-per-boot");
    const auto o = runs_per_boot_in_stand_ins(dir, false, 3, 2, "none");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    // One QEMU a label and round, no more.
    CHECK(lines_by_first_word(dir / "booted").size() == 4);
    const auto started = lines_by_first_word(dir / "starts");
    for (const std::string label : {"a", "b"}) {
        INFO(label);
        const ResultFile f = only_file(dir / "results", label);
        CHECK(f.config["vm"]["runs_per_boot"] == 3);
        CHECK(f.config["vm"]["boots"].size() == 2);
        REQUIRE(f.runs.size() == 12);
        std::map<std::pair<int, int>, int> runs_of_boot_place;
        std::map<std::string, std::set<int>> rounds_of_load;
        for (const auto& r : f.runs) {
            CHECK(r.ok());
            ++runs_of_boot_place[{r.boot, r.run_in_boot}];
            // The pairing number: the boot's runs after the boots' before.
            CHECK(r.round == (r.boot - 1) * 3 + r.run_in_boot);
            CHECK(r.index == r.round);
            rounds_of_load[r.load].insert(r.round);
        }
        CHECK(runs_of_boot_place.size() == 6);
        for (const auto& [where, n] : runs_of_boot_place) {
            INFO("boot " << where.first << ", run " << where.second);
            CHECK(where.first >= 1);
            CHECK(where.first <= 2);
            CHECK(where.second >= 1);
            CHECK(where.second <= 3);
            CHECK(n == 2);  // no_load and cpu_load
        }
        for (const auto& [load, rounds] : rounds_of_load) {
            INFO(load);
            CHECK(rounds == std::set<int>{1, 2, 3, 4, 5, 6});
        }
        // Every run of a boot ran in that boot's guest: its workload said so.
        for (const std::string round : {"1", "2"})
            CHECK(started.count("console-" + label + "-" + round) == 6);
    }
    // The report tells the boots apart: each label and load's noise by level.
    const auto report =
        test::run_contest_binary({"report", (dir / "results").string()}, dir.path());
    INFO(report.out);
    CHECK(report.exit_code == 0);
    for (const std::string where : {"a, no_load", "a, cpu_load", "b, no_load", "b, cpu_load"})
        CHECK(test::count_of(report.out, where + ": noise by level (2 boots, 6 runs") == 1);
    // And as fields: each label and load's Time and Loads, their boots' costs read.
    const auto as_json = test::run_contest_binary(
        {"report", "--format", "json", (dir / "results").string()}, dir.path());
    REQUIRE(as_json.exit_code == 0);
    const auto levels = nlohmann::json::parse(as_json.out).at("level_noise");
    std::set<std::string> seen;
    for (const auto& row : levels) {
        INFO(row.dump());
        CHECK(row.at("boots") == 2);
        CHECK(row.at("runs") == 6);
        CHECK(row.at("boot_s").get<double>() > 0);
        CHECK(row.at("advised_runs_per_boot").get<unsigned>() >= 1);
        seen.insert(row.at("label").get<std::string>() + " " + row.at("load").get<std::string>() +
                    " " + row.at("measure").get<std::string>());
    }
    for (const std::string where : {"a no_load", "a cpu_load", "b no_load", "b cpu_load"})
        CHECK(seen.count(where + " Time") == 1);
    CHECK(seen.count("a cpu_load Loads") == 1);
    // The two labels' rounds, one moment each: how much of their spread the pairs cancel.
    CHECK(test::count_of(report.out, ": the rounds' shared noise (6 rounds;") == 2);
    CHECK(nlohmann::json::parse(as_json.out).at("shared_noise").size() >= 2);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "a --kernel run killed between guests is resumed from its journal alone: each label's "
    "file continued, every run once",
    "[duet][resume][e2e]") {
    test::ScratchDir dir("guests-resume");
    test::put_stand_in_qemu(dir / "bin", dir / "booted", "none", 0);
    test::StandInBootEnvironment on_path(dir / "bin", dir / "proc");
    const pid_t pid =
        test::start_contest(runs_per_boot_run(dir.path(), dir / "starts", false, 1, 3), dir.path());
    // Killed once a guest's turn is saved (2 runs), mid-run.
    REQUIRE(test::wait_for_runs_saved(dir / "results", 2));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    test::leftover_processes();  // what the killed contest left, killed and reaped
    const std::size_t before = test::runs_saved(dir / "results");
    REQUIRE(before < 12);
    const auto journals = [&] {
        std::vector<fs::path> found;
        for (const auto& e : fs::recursive_directory_iterator(dir / "results"))
            if (e.path().extension() == ".run-journal") found.push_back(e.path());
        return found;
    }();
    REQUIRE(journals.size() == 1);
    const auto journal = nlohmann::json::parse(test::slurp(journals[0]));
    CHECK(journal["config"]["place"] == "guests");
    REQUIRE(journal["results"].size() == 2);

    // Resumed by its journal, no other word, from another folder: only the
    // turns not done, in guests again.
    fs::create_directories(dir / "elsewhere");
    const auto o = test::run_contest_binary({"run", "--quiet", "--resume", journals[0].string()},
                                            dir.path(), dir / "elsewhere");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    for (const std::string label : {"a", "b"}) {
        INFO(label);
        const ResultFile f = only_file(dir / "results", label);
        CHECK(f.complete);
        std::map<std::string, std::multiset<int>> rounds_of_load;
        for (const auto& r : f.runs) {
            CHECK(r.ok());
            rounds_of_load[r.load].insert(r.round);
        }
        CHECK(rounds_of_load["no_load"] == std::multiset<int>{1, 2, 3});
        CHECK(rounds_of_load["cpu_load"] == std::multiset<int>{1, 2, 3});
    }
    for (const auto& turn : nlohmann::json::parse(test::slurp(journals[0]))["turns"])
        CHECK(turn["status"] == "done");
    CHECK(fs::is_empty(dir / "elsewhere"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "run --kernel --duet --runs-per-boot 2: every run of a boot passes the start barrier with the "
    "other guest's",
    "[duet][runs-per-boot][e2e]") {
    if (allowed_cpus().size() < 2) CONTEST_SKIP("--duet needs 2 CPUs for two guests of 1 CPU");
    test::ScratchDir dir("duet-runs-per-boot");
    // a's guest reaches its runs 2 s after b's: only the barrier starts them together.
    const auto o = runs_per_boot_in_stand_ins(dir, true, 2, 1, "a");
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(lines_by_first_word(dir / "booted").size() == 2);
    for (const std::string label : {"a", "b"}) {
        INFO(label);
        const ResultFile f = only_file(dir / "results", label);
        REQUIRE(f.runs.size() == 4);
        for (const auto& r : f.runs) {
            CHECK(r.ok());
            CHECK(r.boot == 1);
        }
        const auto& runs = f.config["vm"]["boots"].at(0).at("duet").at("starts");
        REQUIRE(runs.size() == 4);
        const std::vector<std::string> loads = {runs[0]["load"], runs[1]["load"]};
        for (std::size_t k = 0; k < 4; ++k) {
            INFO(runs[k].dump());
            CHECK(runs[k]["run"] == k + 1);
            CHECK(runs[k]["load"] == loads[k % 2]);  // the loads again, in one order
            CHECK(runs[k]["guests_started"] == 2);
            CHECK(runs[k]["after_go_s"].get<double>() >= 0);
            CHECK(runs[k]["spread_s"].get<double>() < 1.0);
        }
    }
    // By the workload's own clock: the k-th run of each guest started together.
    const auto started = lines_by_first_word(dir / "starts");
    std::vector<double> at_a, at_b;
    for (auto [it, end] = started.equal_range("console-a-1"); it != end; ++it)
        at_a.push_back(std::stod(it->second));
    for (auto [it, end] = started.equal_range("console-b-1"); it != end; ++it)
        at_b.push_back(std::stod(it->second));
    REQUIRE(at_a.size() == 4);
    REQUIRE(at_b.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
        INFO("run " << k + 1);
        CHECK(std::abs(at_a[k] - at_b[k]) < 1.0);
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("run --runs-per-boot 0 is refused in one line naming it", "[runs-per-boot][e2e]") {
    test::ScratchDir dir("runs-per-boot-0");
    const auto o = test::run_contest_binary(
        runs_per_boot_run(dir.path(), dir / "starts", false, 0, 1), dir.path());
    CHECK(o.exit_code == 2);
    CHECK(test::count_of(o.err, "\n") == 1);
    CHECK(test::count_of(o.err, "--runs-per-boot") == 1);
    CHECK_FALSE(fs::exists(dir / "results"));
}

// Real guests (TCG), in the long tests: the barrier through a real guest's
// 9p share, and QEMU's own threads pinned.
TEST_CASE(
    "run --kernel --duet: two real guests at once, each QEMU's threads pinned, their runs "
    "started together",
    "[vm][e2e]") {
    const std::vector<int> allowed = allowed_cpus();
    if (allowed.size() < 2) CONTEST_SKIP("--duet needs 2 CPUs for two guests of 1 CPU");
    const std::string package = test::debian_kernel_package();
    REQUIRE_FALSE(package.empty());
    test::ScratchDir dir("vm-duet");
    const auto o = test::run_contest_binary({"run",
                                             "--kernel",
                                             "a=" + package,
                                             "--kernel",
                                             "b=" + package,
                                             "--duet",
                                             "--vm-cpus",
                                             "1",
                                             "--vm-accel",
                                             "tcg",
                                             "-w",
                                             "command",
                                             "--workload-cmd",
                                             "sleep 1",
                                             "--warmup",
                                             "0",
                                             "--timeline-hz",
                                             "0",
                                             "-n",
                                             "1",
                                             "--workdir",
                                             test::vm_test_workdir().string(),
                                             "--results",
                                             (dir / "results").string(),
                                             "no_load"},
                                            dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    std::set<std::string> cpus;
    for (const std::string label : {"a", "b"}) {
        INFO(label);
        const ResultFile f = only_file(dir / "results", label);
        REQUIRE(f.runs.size() == 1);
        CHECK(f.runs.front().ok());
        const auto& duet = f.config["vm"]["boots"].at(0).at("duet");
        cpus.insert(duet["cpus"].get<std::string>());
        // QEMU's main thread, its vCPU's and its helpers: all on the set.
        CHECK(duet["qemu_threads_pinned"].get<int>() >= 2);
        const auto& start = duet["starts"].at(0);
        INFO(start.dump());
        CHECK(start["guests_started"] == 2);
        CHECK(start["stamp"] == "file");
        CHECK(start["after_go_s"].get<double>() >= 0);
        // Each guest polls every 5 ms of its emulated clock: a loose bound.
        CHECK(start["spread_s"].get<double>() < 2.0);
    }
    CHECK(cpus.size() == 2);
    CHECK(test::leftover_processes().empty());
}
