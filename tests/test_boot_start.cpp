// `contest run --boot` of kernels contest builds (TREE@REF), at its start,
// on a made-up machine (stand-in kexec, reboot and systemctl on PATH that
// record what they are asked, CONTEST_TEST_RUNNING_KERNEL's files for the
// running kernel, a scratch --boot-root whose lib/modules/ takes the
// releases): what a start that is refused, or whose later label does not
// build, leaves of the releases it would install.
#include <catch2/catch.hpp>
#include <filesystem>

#include "contest/boot/boot_kernel.h"
#include "contest/boot/boot_state.h"
#include "contest/boot/boot_unit.h"
#include "contest/sys/text.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

struct BuiltBootBench {
    test::ScratchDir dir{"boot-start", test::scratch_kept_at_boot()};
    fs::path bin = dir / "bin", proc = dir / "proc", root = dir / "root", asked = dir / "asked",
             tree = dir / "linux", results = dir / "results", work = dir / "work";
    std::string good, broken;  // a commit that builds, and one that does not
    test::StandInBootEnvironment environment{bin, proc};

    BuiltBootBench() {
        test::put_stand_in_kexec(bin, asked, dir / "refuse-kexec");
        good = test::make_boot_tree(tree, "base");
        test::put_file(tree / "fail", "");
        git("add . && git -c user.name=t -c user.email=t@t commit -qm broken");
        broken = git("rev-parse HEAD");
        test::put_file(dir / "config", "CONFIG_BASE=y\n");
        test::put_file(proc / "osrelease", "6.1.0-57-amd64\n");
        test::put_file(proc / "cmdline", "root=UUID=1 ro quiet\n");
        test::put_file(proc / "boot_id", "boot-1\n");
        test::put_file(proc / "uptime", "12.5 10.0\n");
    }

    std::string git(const std::string& words) const {
        return test::shell_output("cd '" + tree.string() + "' && git " + words);
    }
    // The start of a run of labels a (good) and b, into `into`.
    test::Outcome start(const std::string& b_commit, const fs::path& into) const {
        std::vector<std::string> words = {"run",
                                          "--boot",
                                          "a=" + tree.string() + "@" + good,
                                          "--boot",
                                          "b=" + tree.string() + "@" + b_commit,
                                          "--boot-root",
                                          root.string(),
                                          "--build-config",
                                          (dir / "config").string(),
                                          "--results",
                                          into.string(),
                                          "-n",
                                          "1",
                                          "no_load"};
        for (auto& w : test::quick_run_words(work)) words.push_back(std::move(w));
        return test::run_contest_binary(words, dir.path(), dir.path());
    }
    // The releases installed under the root's lib/modules/.
    std::vector<std::string> releases() const {
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(root / "lib/modules", ec))
            names.push_back(e.path().filename().string());
        return names;
    }
};

}  // namespace

TEST_CASE(
    "run --boot of TREE@REF kernels: a start refused, before or after the build, or whose later "
    "label does not build, leaves no release installed, one that starts installs each once",
    "[boot][e2e]") {
    BuiltBootBench bench;
    SECTION("refused before the build: results under /tmp, nothing built") {
        test::ScratchDir tmp("boot-start-tmp", "/tmp");
        const auto o = bench.start(bench.good, tmp / "results");
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("is under /tmp") != std::string::npos);
        CHECK(bench.releases().empty());
        // Nothing was built: the refusal came first.
        CHECK_FALSE(fs::exists(bench.work / "kbuild/cache"));
    }
    SECTION("b does not build: a's release is not left installed") {
        const auto o = bench.start(bench.broken, bench.results);
        INFO(o.err);
        CHECK(o.exit_code == 1);
        CHECK(o.err.find("the build failed") != std::string::npos);
        CHECK(bench.releases().empty());
        CHECK_FALSE(fs::exists(bench.results / kRunJournalName));
        CHECK_FALSE(fs::exists(boot_unit_path(bench.root)));
        CHECK_FALSE(fs::exists(bench.results / ".run-journal.lock"));
    }
    SECTION("refused after the build (kexec refuses the kernels): the releases removed") {
        test::put_file(bench.dir / "refuse-kexec", "");
        const auto o = bench.start(bench.good, bench.results);
        INFO(o.err);
        CHECK(o.exit_code == 3);
        CHECK(o.err.find("--boot: cannot boot") != std::string::npos);
        CHECK(bench.releases().empty());
        CHECK_FALSE(fs::exists(bench.results / kRunJournalName));
    }
    SECTION(
        "started: the release installed, marked, and named in the state; the abort removes it") {
        const auto o = bench.start(bench.good, bench.results);
        INFO(o.err);
        REQUIRE(o.exit_code == 0);
        const auto installed = bench.releases();
        REQUIRE(installed.size() == 1);  // a and b are one build here
        CHECK(installed[0].starts_with("6.1.0-base-contest-"));
        const BootState s = read_boot_state(bench.results / kRunJournalName);
        for (const auto& label : s.labels) CHECK(label.built_release == installed[0]);
        const auto abort =
            test::run_contest_binary({"run", "--boot-abort", "--results", bench.results.string(),
                                      "--boot-root", bench.root.string()},
                                     bench.dir.path(), bench.dir.path());
        INFO(abort.err);
        CHECK(abort.exit_code == 0);
        CHECK(bench.releases().empty());
    }
    CHECK(test::leftover_processes().empty());
}
