// contest bisect --boot, across reboots of a made-up machine: the boot
// tools are stand-ins on PATH that record what they are asked (kexec,
// reboot, systemctl), and each boot is played here, as test_boot_turns.cpp
// plays them: the kernel a step finds itself in is the one kexec was last
// given (CONTEST_TEST_RUNNING_KERNEL's files say its release and command
// line), and the step is the one contest's unit names. The tree is a real
// git repository whose "kernel" builds in a blink and whose release says
// whether the commit is slow; the workload reads the release it runs under.
// So every batch is a real `contest run --boot`, every later batch is
// started by the last step of the one before (the state's `then`), and the
// bisection must find the commit by what the runs measured.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "contest/bisect/bisect_state.h"
#include "contest/bisect/boot_batches.h"
#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/vm/kernel_image.h"
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

    BootBisectBench() {
        // kexec refuses every kernel while refuse-kexec is there.
        test::put_stand_in_kexec(bin, asked, dir / "refuse-kexec");
        commits.push_back(test::make_boot_tree(tree, "fast"));
        for (int i = 1; i <= 4; ++i) {
            // From the third on, the slow one: the commit to find.
            test::put_file(tree / "flavour", i >= 3 ? "slow" : "fast");
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
        if (how == kexec && !loaded_image.empty()) {
            const std::string version = bzimage_version(loaded_image);
            boot_in(version.substr(0, version.find(' ')), loaded_cmdline);
        } else if (how != none) {
            boot_in("6.1.0-57-amd64", "root=UUID=1 ro quiet");
        }
        return how != none;
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
    "the last step of the one before; the commit that made the runs slow found, nothing left "
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
    CHECK_FALSE(fs::exists(bench.results / "ends/part-1" / kBootStateName));
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
    // The machine: each boot's step, as contest's unit would start it, until
    // no unit is left and nothing more is asked.
    int steps = 0;
    std::string log;
    for (; steps < 80; ++steps) {
        if (!bench.reboot()) break;
        const auto state = boot_unit_state(bench.root);
        if (!state) break;
        auto step = test::run_contest_binary({"run", "--boot-continue", state->string()},
                                             bench.dir.path(), bench.dir.path());
        log += step.out + step.err;
        INFO(log);
        REQUIRE(step.exit_code <= 1);
    }
    INFO(log);
    CAPTURE(steps);
    CHECK(steps < 80);  // the machine went idle: no reboot left asked
    const bisect::BisectState s = bisect::read_bisect_state(bench.results / "bisect.json");
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
                    const BootState b = read_boot_state(part.path() / kBootStateName);
                    CHECK(b.phase == BootPhase::done);
                    CHECK(b.then.size() == 3);
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

TEST_CASE("a boot state's `then` is only ever contest bisect --continue of a folder above its own",
          "[bisect][boot]") {
    BootState s;
    s.argv = {"run", "--boot", "a=/boot/vmlinuz-x", "--boot", "b=/boot/vmlinuz-y", "no_load"};
    s.cwd = s.workdir = s.unit_root = "/";
    const fs::path folder = "/var/lib/contest/bisect/step-1-abc/part-1";
    s.binary = boot_binary_path(folder).string();
    s.then = {"bisect", "--continue", "/var/lib/contest/bisect"};
    const BootState back = boot_state_from_text(boot_state_text(s), "state");
    CHECK(back.then == s.then);
    CHECK_NOTHROW(check_state_paths(back, folder, "state"));
    // Without a then, the file has none (an earlier contest's state reads the same).
    s.then.clear();
    CHECK(boot_state_text(s).find("\"then\"") == std::string::npos);
    const auto refused = [&](const std::vector<std::string>& then) {
        BootState bad = s;
        bad.then = then;
        try {
            check_state_paths(boot_state_from_text(boot_state_text(bad), "state"), folder, "state");
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(refused({"sh", "-c", "reboot"}).find("then: not 'bisect --continue FOLDER'") !=
          std::string::npos);
    CHECK(refused({"bisect", "--continue", "relative/bisect"}).find("not an absolute path") !=
          std::string::npos);
    CHECK(refused({"bisect", "--continue", "/elsewhere"}).find("is not a folder above") !=
          std::string::npos);
    CHECK(refused({"bisect", "--continue", "/var/lib/contest/bisect", "--boot"}).find("then:") !=
          std::string::npos);
}
