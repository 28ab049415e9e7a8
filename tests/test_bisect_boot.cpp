// contest bisect --boot, across reboots of a made-up machine: the boot
// tools are stand-ins on PATH that record what they are asked (kexec,
// reboot, systemctl), and each boot is played here, as test_boot_turns.cpp
// plays them: the kernel a step finds itself in is the one kexec was last
// given (CONTEST_TEST_RUNNING_KERNEL's files say its release and command
// line), and the step is the one contest's unit names. The tree is a real
// git repository whose "kernel" builds in a blink and whose release says
// whether the commit is slow; the workload reads the release it runs under.
// So every batch is a real `contest run --boot`, every later batch is
// started by the last step of the one before (the part's journal names the
// bisection that owns it, whose journal that step takes on), and the
// bisection must find the commit by what the runs measured.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "contest/bisect/batch_files.h"
#include "contest/bisect/bisect_measure.h"
#include "contest/bisect/bisect_state.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/run/record/result_writer.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/vm/kernel_image.h"
#include "fake_bisect_place.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

std::string git_in(const fs::path& tree, const std::string& words) {
    return test::shell_output("cd '" + tree.string() +
                              "' && git -c user.name=t -c user.email=t@t " + words);
}

struct BootBisectBench {
    test::ScratchDir dir{"bisect-boot", test::scratch_kept_at_boot()};
    fs::path bin = dir / "bin", proc = dir / "proc", root = dir / "root", asked = dir / "asked",
             tree = dir / "linux", results = dir / "results", work = dir / "work";
    std::vector<std::string> commits;  // base, then c1..c4
    std::string saved_path;
    int boots = 0;
    std::size_t asked_read = 0;  // the asked log's bytes seen at the last boot
    std::string loaded_image, loaded_cmdline;
    std::string never_boots;  // a release with this in it panics at boot

    BootBisectBench() {
        // kexec refuses every kernel while refuse-kexec is there.
        test::put_stand_in_kexec(bin, asked, dir / "refuse-kexec");
        // make fails while break-make is there (a machine whose compiler
        // went away), else is the real one.
        const auto make = find_on_path("make");
        REQUIRE(make);
        test::put_file(bin / "make",
                       "#!/bin/sh\n[ -e '" + (dir / "break-make").string() +
                           "' ] && { echo 'make: cc: not found' >&2; exit 2; }\nexec '" +
                           make->string() + "' \"$@\"\n",
                       true);
        commits.push_back(test::make_boot_tree(tree, "c0-fast"));
        for (int i = 1; i <= 4; ++i) {
            // From the third on, the slow one: the commit to find.
            test::put_file(tree / "flavour",
                           "c" + std::to_string(i) + (i >= 3 ? "-slow" : "-fast"));
            test::put_file(tree / ("file" + std::to_string(i)), std::to_string(i));
            git_in(tree, "add . && git -c user.name=t -c user.email=t@t commit -qm 'change " +
                             std::to_string(i) + "'");
            commits.push_back(git_in(tree, "rev-parse HEAD"));
        }
        test::put_file(dir / "work.sh", "case \"$(cat '" + (proc / "osrelease").string() +
                                            "')\" in *slow*) sleep 0.6 ;; *) sleep 0.05 ;; esac\n");
        test::put_file(dir / "config", "CONFIG_BASE=y\n");
        const char* path = std::getenv("PATH");
        saved_path = path ? path : "/usr/bin:/bin";
        ::setenv("PATH", (bin.string() + ":" + saved_path).c_str(), 1);
        ::setenv(kTestRunningKernelVariable, proc.c_str(), 1);
        boot_in("6.1.0-57-amd64", "root=UUID=1 ro quiet");
    }
    ~BootBisectBench() {
        ::setenv("PATH", saved_path.c_str(), 1);
        ::unsetenv(kTestRunningKernelVariable);
    }
    BootBisectBench(const BootBisectBench&) = delete;
    BootBisectBench& operator=(const BootBisectBench&) = delete;

    void boot_in(const std::string& release, const std::string& cmdline) {
        test::put_file(proc / "osrelease", release + "\n");
        test::put_file(proc / "cmdline", cmdline + "\n");
        test::put_file(proc / "boot_id", "boot-" + std::to_string(++boots) + "\n");
        test::put_file(proc / "uptime", "12.5 10.0\n");
    }

    // The machine's next boot, from what was asked of it since the last:
    // the kernel kexec was given last, at `kexec -e`; the default one at a
    // reboot. False when nothing was asked (no reboot: the machine is idle).
    bool reboot() {
        const std::string log = test::slurp(asked);
        const std::string since = log.substr(std::min(asked_read, log.size()));
        asked_read = log.size();
        enum { none, kexec, firmware } how = none;
        for (const auto& line : split_lines(since)) {
            if (line.starts_with("kexec -s ") || line.starts_with("kexec -l ")) {
                // kexec -s IMAGE --command-line=LINE (no --initrd: none is made here)
                const std::string at = " --command-line=";
                const std::size_t cmd = line.find(at);
                REQUIRE(cmd != std::string::npos);
                loaded_image = line.substr(9, cmd - 9);
                loaded_cmdline = line.substr(cmd + at.size());
            } else if (line.starts_with("kexec -u")) {
                loaded_image.clear();
            } else if (line.starts_with("kexec -e")) {
                how = kexec;
            } else if (line.starts_with("reboot") ||
                       line.starts_with("systemctl --no-block reboot")) {
                how = firmware;
            }
        }
        const std::string version = loaded_image.empty() ? "" : bzimage_version(loaded_image);
        // A kernel that never boots: it panics, and the firmware boots the
        // machine's default.
        const bool panics = !never_boots.empty() && version.find(never_boots) != std::string::npos;
        if (how == kexec && !loaded_image.empty() && !panics) {
            boot_in(version.substr(0, version.find(' ')), loaded_cmdline);
        } else if (how != none) {
            boot_in("6.1.0-57-amd64", "root=UUID=1 ro quiet");
        }
        return how != none;
    }

    // The machine: each boot's step, as contest's unit would start it, until
    // no unit is left and nothing more is asked (or max_boots). What the
    // steps said; each must end 0 or 1.
    std::string run_machine(int max_boots, int& steps) {
        std::string log;
        for (steps = 0; steps < max_boots; ++steps) {
            if (!reboot()) break;
            const auto state = boot_unit_state(root);
            if (!state) break;
            auto step = test::run_contest_binary({"run", "--boot-continue", state->string()},
                                                 dir.path(), dir.path());
            log += step.out + step.err;
            INFO(log);
            REQUIRE(step.exit_code <= 1);
        }
        return log;
    }

    // The workload's figure made noisy, and free of this machine's timing:
    // the k-th run under commit i's kernel (its release names the commit,
    // 6.1.0-cI-...) has dd hold the k-th of figures[i] KiB, each base +
    // sd * N(0, 1), plus `effect` from the third commit on; measured as the
    // run's largest resident memory (max_rss_kib), dd's own pages besides.
    void memory_figures(double base, double effect, double sd, unsigned seed) {
        std::mt19937_64 rng(seed);
        std::normal_distribution<double> noise(0, sd);
        figures.assign(commits.size(), {});
        for (std::size_t i = 0; i < commits.size(); ++i) {
            std::string lines;
            for (int k = 0; k < 60; ++k) {
                const double kib =
                    std::round(std::max(base / 4, base + (i >= 3 ? effect : 0) + noise(rng)));
                figures[i].push_back(kib);
                lines += std::to_string(static_cast<long>(kib)) + "\n";
            }
            test::put_file(dir / ("figures-" + std::to_string(i)), lines);
        }
        const std::string d = dir.path().string();
        test::put_file(dir / "work.sh",
                       "r=$(cat '" + (proc / "osrelease").string() +
                           "'); i=${r#6.1.0-c}; i=${i%%-*}\n"
                           "n=$(cat '" +
                           d +
                           "/count-'$i 2>/dev/null || echo 0); n=$((n+1))\n"
                           "echo $n > '" +
                           d +
                           "/count-'$i\n"
                           "exec dd if=/dev/zero of=/dev/null count=1 status=none bs=$(sed -n "
                           "${n}p '" +
                           d + "/figures-'$i)K\n");
    }
    std::vector<std::vector<double>> figures;  // by commit, each run's KiB

    int commit_index(const std::string& spec) const {
        const std::string commit = spec.substr(spec.rfind('@') + 1);
        for (std::size_t i = 0; i < commits.size(); ++i)
            if (commits[i] == commit) return static_cast<int>(i);
        return -1;
    }

    std::vector<std::string> bisect_words() const {
        return {"bisect",
                "--boot",
                "--good",
                tree.string() + "@" + commits.front(),
                "--bad",
                tree.string() + "@" + commits.back(),
                "--measure",
                "time:no_load",
                "--results",
                results.string(),
                "--",
                "--boot-root",
                root.string(),
                "--build-config",
                (dir / "config").string(),
                "-w",
                "command",
                "--workload-cmd",
                "sh " + (dir / "work.sh").string(),
                "--warmup",
                "0",
                "--timeline-hz",
                "0",
                "--workdir",
                work.string(),
                "-q",
                "no_load"};
    }
};

// The same bisection in guests: each batch's rounds made up here, the k-th
// run of a commit's kernel taking the k-th of its figures, as the machine's
// workload holds them; the files where a guests' batch keeps them.
test::TakeRounds figures_take(const BootBisectBench& bench, std::map<int, std::size_t>& taken) {
    return [&bench, &taken](const std::vector<KernelSpec>& kernels, const fs::path& folder,
                            unsigned max_rounds, const bisect::StopRule& stop) {
        std::vector<ResultFile> files(kernels.size());
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            files[i].label = kernels[i].label;
            files[i].contest_version = "test";
            files[i].started_at = files[i].finished_at = "2026-12-05T00:00:00Z";
            files[i].complete = true;
        }
        for (unsigned round = 1; round <= max_rounds; ++round) {
            for (std::size_t i = 0; i < kernels.size(); ++i) {
                const int c = bench.commit_index(kernels[i].image);
                REQUIRE(c >= 0);
                RunRecord r;
                r.load = "no_load";
                r.index = r.round = static_cast<int>(round);
                r.wall_s = 0.1;
                r.cpu_pct = 1;
                r.max_rss_kib = static_cast<std::int64_t>(bench.figures.at(c).at(taken[c]++));
                files[i].runs.push_back(r);
            }
            if (!stop(round, files).empty()) break;
        }
        for (const auto& f : files) {
            fs::create_directories(folder / f.label);
            ResultWriter(folder / f.label / "run.json").save(f);
        }
        return files;
    };
}

}  // namespace

TEST_CASE("a batch across reboots: its parts' rounds numbered on, label by label", "[bisect]") {
    const auto file = [](const std::string& label, std::vector<int> rounds) {
        ResultFile f;
        f.label = label;
        f.complete = true;
        for (int r : rounds) {
            RunRecord run;
            run.load = "no_load";
            run.round = run.index = r;
            f.runs.push_back(run);
        }
        return f;
    };
    unsigned rounds = 0;
    const auto merged = bisect::merged_parts(
        {{file("good", {1, 2, 3}), file("bad", {1, 2, 3})}, {file("bad", {1}), file("good", {1})}},
        rounds);
    CHECK(rounds == 4);
    REQUIRE(merged.size() == 2);
    CHECK(merged[0].label == "good");
    REQUIRE(merged[0].runs.size() == 4);
    CHECK(merged[0].runs.back().round == 4);
    CHECK(merged[1].runs.back().round == 4);
    bisect::merged_parts({}, rounds);
    CHECK(rounds == 0);
}

TEST_CASE(
    "contest bisect --boot: each batch a run --boot of this machine, each later batch started by "
    "the last step of the one before, the commit that made the runs slow found, nothing left "
    "installed or running",
    "[bisect][boot][e2e]") {
    BootBisectBench bench;
    // A first start the machine refuses (its kexec off) leaves no part: the
    // same command again starts the ends' first part in the same folder.
    test::put_file(bench.dir / "refuse-kexec", "");
    const auto refused =
        test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    CHECK(refused.exit_code == 3);
    CHECK(refused.err.find("--boot: cannot boot") != std::string::npos);
    CHECK_FALSE(fs::exists(bench.results / "ends/part-1" / kRunJournalName));
    fs::remove(bench.dir / "refuse-kexec");
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    CHECK(o.out.find("3 rounds started in " + (bench.results / "ends/part-1").string()) !=
          std::string::npos);
    // While it runs, its post says so (not "cannot tell the ends apart").
    const auto under_way = test::run_contest_binary({"post", bench.results.string()},
                                                    bench.dir.path(), bench.dir.path());
    CHECK(under_way.out.find("Subject: [contest] bisect time:no_load: under way") !=
          std::string::npos);
    CHECK(under_way.out.find("ends: being measured") != std::string::npos);
    int steps = 0;
    const std::string log = bench.run_machine(80, steps);
    INFO(log);
    CAPTURE(steps);
    CHECK(steps < 80);  // the machine went idle: no reboot left asked
    // One file holds the bisection: its batches' config and its state, the
    // journal's two sections; no state file of its own beside it.
    const nlohmann::json journal =
        nlohmann::json::parse(test::slurp(bench.results / kRunJournalName));
    CHECK(journal.contains("config"));
    CHECK(journal.contains("boot"));
    CHECK(journal.contains("bisection"));
    CHECK_FALSE(fs::exists(bench.results / "bisect.json"));
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    CHECK(s.place == "boot");
    CHECK(s.finished);
    CHECK(s.ends_state == EndsState::differ);
    CHECK(s.first_bad == bench.commits.at(3));
    CHECK(s.first_bad_subject == "change 3");
    REQUIRE(s.steps.size() >= 2);
    for (const auto& step : s.steps) {
        CHECK(step.state != StepClass::unknown);
        CHECK(step.rounds >= 2);
        CHECK(step.seconds > 0);
        CHECK(fs::exists(bench.results / step.folder / "part-1/tested"));
    }
    CHECK(s.sureness > 0.9);
    CHECK(s.seconds > 0);
    CHECK(fs::is_regular_file(bench.results / "bisect.log"));
    // Every batch's run ended done, its unit and copies gone, and the
    // releases contest built removed.
    CHECK_FALSE(boot_unit_state(bench.root));
    for (const auto& batch : fs::directory_iterator(bench.results))
        if (batch.is_directory())
            for (const auto& part : fs::directory_iterator(batch.path()))
                if (part.path().filename().string().starts_with("part-")) {
                    const BootState b = read_boot_state(part.path() / kRunJournalName);
                    CHECK(b.phase == BootPhase::done);
                    CHECK(b.owner == bench.results.string());
                    CHECK_FALSE(fs::exists(part.path() / ".boot"));
                }
    std::error_code ec;
    CHECK(
        (!fs::exists(bench.root / "lib/modules", ec) || fs::is_empty(bench.root / "lib/modules")));
    // --continue of a finished bisection says its answer again, and starts nothing.
    const std::size_t asked_before = test::slurp(bench.asked).size();
    auto again = test::run_contest_binary({"bisect", "--continue", bench.results.string()},
                                          bench.dir.path(), bench.dir.path());
    CHECK(again.exit_code == 0);
    CHECK(again.out.find("first bad commit: " + bench.commits.at(3)) != std::string::npos);
    CHECK(test::slurp(bench.asked).size() == asked_before);
    // --continue takes nothing else.
    auto more = test::run_contest_binary(
        {"bisect", "--continue", bench.results.string(), "--error-rate", "0.05"}, bench.dir.path(),
        bench.dir.path());
    CHECK(more.exit_code == 2);
    CHECK(more.err.find("give no --error-rate") != std::string::npos);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest bisect --boot pools every round of the ends as in guests: a commit whose figure is "
    "three times the noise higher found, each step decided as the same figures decide it in guests",
    "[bisect][boot][e2e]") {
    BootBisectBench bench;
    // A shift of three times the noise: at twice, the guests' own bisection
    // (the reference here) leaves the first bad commit undecided within
    // --step-max-rounds now that a step must also stand apart from halfway.
    bench.memory_figures(150000, 22500, 7500, 29);
    std::vector<std::string> words = bench.bisect_words();
    *(std::find(words.begin(), words.end(), "--measure") + 1) = "max_rss_kib:no_load";
    // In guests first (each run's figure exactly its listed one).
    Progress quiet = Progress::for_stderr(true);
    std::map<int, std::size_t> taken;
    bisect::BisectOptions in_guests;
    in_guests.tree = bench.tree;
    in_guests.good = bench.commits.front();
    in_guests.bad = bench.commits.back();
    in_guests.measure = bisect::parse_bisect_measure("max_rss_kib:no_load", {"no_load"});
    in_guests.results = bench.dir / "guests";
    in_guests.workdir = bench.dir / "guests-work";
    const bisect::BisectState g = test::run_bisection(in_guests, figures_take(bench, taken), quiet);
    INFO(bisect::bisection_text(g));
    REQUIRE(g.first_bad == bench.commits.at(3));
    // Across reboots, the workload holding the same figures.
    auto o = test::run_contest_binary(words, bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    int boots = 0;
    const std::string log = bench.run_machine(200, boots);
    INFO(log);
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    INFO(bisect::bisection_text(s));
    CHECK(s.finished);
    CHECK(s.ends_state == EndsState::differ);
    CHECK(s.first_bad == bench.commits.at(3));
    // The steps the guests' took, each decided the same way in about as
    // many rounds: judged on every round of the ends so far, not on its own
    // few (which leave a step undecided at a shift three times the noise).
    CHECK(s.ends_rounds <= g.ends_rounds + 1);
    REQUIRE(s.steps.size() == g.steps.size());
    unsigned rounds = 0, guest_rounds = 0;
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        CHECK(s.steps[i].commit == g.steps[i].commit);
        CHECK(s.steps[i].state == g.steps[i].state);
        CHECK(s.steps[i].state != StepClass::unknown);
        rounds += s.steps[i].rounds;
        guest_rounds += g.steps[i].rounds;
    }
    // (dd's own pages vary by a few KiB: a step at the bound's edge may
    // take another round or two.)
    CHECK(rounds <= guest_rounds + 2);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest bisect --boot: every part is started from the bisection's journal, its words never "
    "parsed again after the start",
    "[bisect][boot][e2e][journal]") {
    BootBisectBench bench;
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // The journal made at the start: the batches' config, resolved, and how
    // a part boots.
    const fs::path journal_path = bench.results / kRunJournalName;
    RunJournal journal = read_run_journal(journal_path);
    CHECK(journal.config.place == RunPlace::boot);
    CHECK(journal.config.workload.workload_cmd == "sh " + (bench.dir / "work.sh").string());
    CHECK(journal.config.build_config == bench.results / "build.config");
    REQUIRE(journal.boot);
    CHECK(journal.boot->root == bench.root);
    // The state's words made unparseable, the journal given a command run
    // before each batch: a part made of words would refuse them, or not
    // run that command.
    // (The state is the journal's own section: read before the journal's
    // config is written again, and put back after.)
    bisect::BisectState state = bisect::read_bisect_state(bench.results);
    state.run_words = {"--no-such-option", "--runs=-1"};
    const fs::path mark = bench.dir / "prepared";
    journal.config.workload.prepare_cmd = "touch " + mark.string();
    write_run_journal(journal_path, journal);
    bisect::write_bisect_state(bench.results, state);
    int steps = 0;
    const std::string log = bench.run_machine(80, steps);
    INFO(log);
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    CHECK(s.finished);
    CHECK(s.first_bad == bench.commits.at(3));
    CHECK(fs::exists(mark));
    // A journal of the wrong shape stops the next part with one line naming
    // its field, and starts nothing.
    nlohmann::json bad = nlohmann::json::parse(test::slurp(journal_path));
    bad["config"]["runs"] = "3";
    test::put_file(journal_path, bad.dump());
    auto refused = test::run_contest_binary({"bisect", "--continue", bench.results.string()},
                                            bench.dir.path(), bench.dir.path());
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("config: runs: not a whole number >= 0") != std::string::npos);
    CHECK(test::leftover_processes().empty());
}

// Each part's result file of `label`, across the bisection's batches.
std::vector<ResultFile> part_files_of(const fs::path& results, const std::string& label) {
    std::vector<ResultFile> files;
    for (const auto& batch : fs::directory_iterator(results))
        if (batch.is_directory())
            for (const auto& part : fs::directory_iterator(batch.path()))
                if (part.path().filename().string().starts_with("part-") &&
                    fs::is_directory(part.path() / label)) {
                    std::vector<std::string> refused;
                    for (auto& f : read_result_paths({part.path() / label}, refused))
                        files.push_back(std::move(f));
                }
    return files;
}

TEST_CASE(
    "contest bisect --boot pins its build config at its start, and refuses a rerun measured "
    "otherwise, naming what differs",
    "[bisect][boot][e2e]") {
    BootBisectBench bench;
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // The same command with another rule, or other run words: one line, exit 2.
    const auto rerun = [&](std::vector<std::string> words) {
        return test::run_contest_binary(words, bench.dir.path(), bench.dir.path());
    };
    std::vector<std::string> other_rate = bench.bisect_words();
    other_rate.insert(other_rate.begin() + 1, {"--error-rate", "0.05"});
    std::vector<std::string> other_words = bench.bisect_words();
    *(std::find(other_words.begin(), other_words.end(), "--warmup") + 1) = "1";
    for (const auto& [words, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {other_rate, "is a bisection with other --error-rate (0.01 there, 0.05 now)"},
             {other_words, "is a bisection with other words after --"}}) {
        const auto refused = rerun(words);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains(says));
        CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
    }
    // The user's config changes while the machine reboots: no later build
    // follows it.
    test::put_file(bench.dir / "config", "CONFIG_BASE=y\nCONFIG_OTHER=y\n");
    int boots = 0;
    const std::string log = bench.run_machine(120, boots);
    INFO(log);
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    CHECK(s.finished);
    CHECK(s.first_bad == bench.commits.at(3));
    CHECK(s.failure.empty());
    // Every part's good end: one build config, every later batch the first
    // one's build from the cache.
    const std::vector<ResultFile> goods = part_files_of(bench.results, "good");
    REQUIRE(goods.size() >= 3);
    std::set<std::string> configs;
    int rebuilt = 0;
    for (const auto& f : goods) {
        const auto& build = f.config.at("boot").at("build");
        configs.insert(build.value("config_sha256", ""));
        rebuilt += build.value("cache_hit", false) ? 0 : 1;
    }
    CHECK(configs.size() == 1);
    CHECK(rebuilt == 1);
    CHECK_THAT(test::slurp(bench.results / "build.config"), Catch::Contains("CONFIG_BASE=y"));
    CHECK_THAT(test::slurp(bench.results / "build.config"), !Catch::Contains("CONFIG_OTHER"));
}

TEST_CASE(
    "contest bisect --boot: an end that does not build ends the bisection, said in its state "
    "and its post, and blames no commit",
    "[bisect][boot][e2e]") {
    BootBisectBench bench;
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // The ends were built at the start; their cache is gone and the
    // compiler with it before the next batch builds them again.
    fs::remove_all(bench.work / "kbuild/cache");
    test::put_file(bench.dir / "break-make", "");
    int boots = 0;
    const std::string log = bench.run_machine(40, boots);
    INFO(log);
    CHECK(boots < 40);  // nothing more asked of the machine
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    CHECK_FALSE(s.finished);
    CHECK(s.steps.empty());  // no commit blamed for the end's build
    CHECK_THAT(s.failure, Catch::Contains("the good end does not build"));
    CHECK_THAT(s.failure, Catch::Contains("cc: not found"));
    const auto post = test::run_contest_binary({"post", bench.results.string()}, bench.dir.path(),
                                               bench.dir.path());
    CHECK_THAT(post.out, Catch::Contains("Subject: [contest] bisect time:no_load: ended without "
                                         "an answer"));
    CHECK_THAT(test::unwrapped(post.out), Catch::Contains("the good end does not build"));
    CHECK_THAT(post.out, !Catch::Contains("under way"));
    // Mended, the bisection goes on from there and clears its failure.
    fs::remove(bench.dir / "break-make");
    auto again = test::run_contest_binary({"bisect", "--continue", bench.results.string()},
                                          bench.dir.path(), bench.dir.path());
    INFO(again.out << again.err);
    CHECK(again.exit_code == 0);
    CHECK(bisect::read_bisect_state(bench.results).failure.empty());
    bench.run_machine(120, boots);
    CHECK(bisect::read_bisect_state(bench.results).first_bad == bench.commits.at(3));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest bisect --boot: a tested kernel that never boots ends its step after one part, "
    "skipped and said why",
    "[bisect][boot][e2e]") {
    BootBisectBench bench;
    bench.never_boots = "6.1.0-c2-";
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    int boots = 0;
    const std::string log = bench.run_machine(120, boots);
    INFO(log);
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    INFO(bisect::bisection_text(s));
    CHECK(s.finished);
    const auto c2 = std::find_if(s.steps.begin(), s.steps.end(), [&](const bisect::BisectStep& st) {
        return st.commit == bench.commits.at(2);
    });
    REQUIRE(c2 != s.steps.end());
    CHECK(c2->word == "skip");
    CHECK_THAT(c2->why, Catch::Contains("the tested commit brought no figure back in round 2 "
                                        "(boot_failed"));
    CHECK(fs::exists(bench.results / c2->folder / "part-1"));
    CHECK_FALSE(fs::exists(bench.results / c2->folder / "part-2"));
    // The answer still holds what the other steps found.
    CHECK(
        (s.first_bad == bench.commits.at(3) ||
         std::find(s.could_be.begin(), s.could_be.end(), bench.commits.at(3)) != s.could_be.end()));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "a boot state's owner is only ever a folder above its own, and an earlier contest's `then` is "
    "read as its owner",
    "[bisect][boot]") {
    BootState s;
    s.workdir = s.unit_root = "/";
    const fs::path folder = "/var/lib/contest/bisect/step-1-abc/part-1";
    s.binary = boot_binary_path(folder).string();
    s.owner = "/var/lib/contest/bisect";
    const BootState back = boot_state_from_text(boot_state_text(s), "state");
    CHECK(back.owner == s.owner);
    CHECK_NOTHROW(check_state_paths(back, folder, "state"));
    // Without an owner, the file has none (an earlier contest's state reads the same).
    s.owner.clear();
    CHECK(boot_state_text(s).find("\"owner\"") == std::string::npos);
    const auto read = [&](const std::string& field, const nlohmann::json& value) {
        nlohmann::json j = nlohmann::json::parse(boot_state_text(s));
        j[field] = value;
        try {
            const BootState b = boot_state_from_text(j.dump(), "state");
            check_state_paths(b, folder, "state");
            return "owner " + b.owner;
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
    };
    CHECK_THAT(read("owner", "relative/bisect"), Catch::Contains("owner: 'relative/bisect' is not "
                                                                 "an absolute path"));
    CHECK_THAT(read("owner", "/elsewhere"), Catch::Contains("owner: '/elsewhere' is not a folder "
                                                            "above"));
    // An earlier contest's words: only `bisect --continue FOLDER`, read as FOLDER.
    CHECK(read("then", {"bisect", "--continue", "/var/lib/contest/bisect"}) ==
          "owner /var/lib/contest/bisect");
    CHECK_THAT(read("then", {"sh", "-c", "reboot"}),
               Catch::Contains("then: not 'bisect --continue FOLDER'"));
    CHECK_THAT(read("then", {"bisect", "--continue", "relative/bisect"}),
               Catch::Contains("then: 'relative/bisect' is not an absolute path"));
    CHECK_THAT(read("then", {"bisect", "--continue", "/elsewhere"}),
               Catch::Contains("owner: '/elsewhere' is not a folder above"));
    CHECK_THAT(read("then", {"bisect", "--continue", "/var/lib/contest/bisect", "--boot"}),
               Catch::Contains("then:"));
}

TEST_CASE(
    "contest bisect --boot: a part's end hands over to the bisection its journal names, in the "
    "unit's own step, and a part whose journal names none ends alone",
    "[bisect][boot][e2e][journal]") {
    BootBisectBench bench;
    auto o = test::run_contest_binary(bench.bisect_words(), bench.dir.path(), bench.dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // The part's journal names the bisection that owns it, and no command.
    const fs::path part_journal = bench.results / "ends/part-1" / kRunJournalName;
    const nlohmann::json j = nlohmann::json::parse(test::slurp(part_journal));
    CHECK(j.at("boot_run").value("owner", "") == bench.results.string());
    CHECK_FALSE(j.at("boot_run").contains("then"));
    // Its owner taken out of its journal: the part ends alone, and nothing
    // goes on after it.
    BootState state = read_boot_state(part_journal);
    state.owner.clear();
    write_boot_state(part_journal, state);
    int steps = 0;
    std::string log = bench.run_machine(20, steps);
    INFO(log);
    CHECK(read_boot_state(part_journal).phase == BootPhase::done);
    CHECK_FALSE(boot_unit_state(bench.root));
    CHECK_FALSE(fs::exists(bench.results / "ends/part-2"));
    for (const auto& entry : fs::directory_iterator(bench.results))
        CHECK_FALSE(entry.path().filename().string().starts_with("step-"));
    CHECK(bisect::read_bisect_state(bench.results).ends_state == EndsState::unknown);
    CHECK_THAT(log, !Catch::Contains("bisection goes on"));
    // Taken on by hand; from then on each part's last step takes the
    // bisection's journal on itself (no contest of words started), to the answer.
    auto again = test::run_contest_binary({"bisect", "--continue", bench.results.string()},
                                          bench.dir.path(), bench.dir.path());
    INFO(again.out << again.err);
    REQUIRE(again.exit_code == 0);
    CHECK_THAT(again.out, Catch::Contains("started in"));
    log = bench.run_machine(80, steps);
    CHECK_THAT(log, Catch::Contains("the boot run's bisection goes on: " + bench.results.string()));
    CHECK_THAT(log, !Catch::Contains("goes on with: contest"));
    const bisect::BisectState s = bisect::read_bisect_state(bench.results);
    CHECK(s.finished);
    CHECK(s.first_bad == bench.commits.at(3));
    CHECK(test::leftover_processes().empty());
}
