// The kernel workload end to end on a fake kernel tree (tests/data/fake-kernel):
// prepare once and cache it, prepare afresh when the key changes, clean and
// time each run in the fixed environment, show the log's tail on failure.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contest/sys/errors.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/spawn.h"
#include "test_helpers.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

using contest::test::ScratchDir;
using contest::test::slurp;
namespace fs = std::filesystem;

namespace {

// A source tree of our own (copied from the fixture) that tests may change,
// and a workdir, both removed at the end.
struct FakeKernel {
    ScratchDir scratch;
    fs::path source;
    contest::WorkloadOptions options;
    contest::Progress quiet{contest::Progress::Mode::kQuiet};

    explicit FakeKernel(const std::string& tag) : scratch("kernel-" + tag) {
        source = scratch / "linux-fake";
        fs::copy(fs::path(CONTEST_TEST_DATA) / "fake-kernel", source, fs::copy_options::recursive);
        options.kind = "kernel";
        options.workdir = scratch / "work";
        options.kernel_source = source;
        options.jobs = 3;
    }

    std::unique_ptr<contest::Workload> prepared() {
        auto workload = contest::make_workload(options);
        workload->prepare(quiet);
        return workload;
    }
};

// The lines of calls.log the fake Makefile wrote in the prepared tree.
std::vector<std::string> calls(const contest::Workload& workload) {
    std::istringstream in(slurp(workload.source_tree() / "calls.log"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && line.back() == ' ') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

contest::ExitInfo run_timed(const contest::Workload& workload,
                            std::vector<std::string> extra_env = {}) {
    contest::Command command = workload.timed_command();
    contest::SpawnOptions options;
    options.cwd = command.cwd;
    options.env_overrides = command.env_overrides;
    options.env_overrides.insert(options.env_overrides.end(), extra_env.begin(), extra_env.end());
    options.log_to(workload.log_path());
    auto started = std::chrono::steady_clock::now();
    pid_t pid = contest::spawn(command.argv, options);
    contest::GroupGuard guard(pid);
    return contest::wait_child(pid, started);
}

void append(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::app) << text;
}

}  // namespace

TEST_CASE("kernel: prepare, then clean and time make -jN each run", "[workloads][kernel]") {
    FakeKernel fake("cycle");
    auto workload = fake.prepared();
    CHECK(workload->name() == "kernel");
    CHECK(workload->source_tree() == fake.options.workdir / "kernel" / "tree");
    CHECK(calls(*workload) == std::vector<std::string>{"tinyconfig"});
    CHECK(workload->describe()["prepare_reused"] == false);
    CHECK(workload->describe()["kernel_version"] == "0.0.0-fake");
    // The user's tree is copied, never built in.
    CHECK_FALSE(fs::exists(fake.source / "calls.log"));
    CHECK_FALSE(fs::exists(fake.source / ".config"));

    auto command = workload->timed_command();
    CHECK(command.argv == std::vector<std::string>{"make", "-j3"});
    CHECK(command.cwd == workload->source_tree());

    for (int run = 0; run < 2; ++run) {
        workload->clean();
        CHECK_FALSE(fs::exists(workload->source_tree() / "vmlinux"));
        CHECK(run_timed(*workload).exited_ok());
        CHECK(fs::exists(workload->source_tree() / "vmlinux"));
    }
    CHECK(calls(*workload) ==
          std::vector<std::string>{"tinyconfig", "clean", "all -j3", "clean", "all -j3"});
    // The log holds the latest run's output, in the workdir.
    CHECK(workload->log_path().parent_path() == fake.options.workdir / "kernel");
    CHECK(slurp(workload->log_path()) == "  CC      init/main.o\n  LD      vmlinux\n");
}

TEST_CASE("kernel: the build runs in the fixed environment", "[workloads][kernel]") {
    FakeKernel fake("env");
    auto workload = fake.prepared();
    workload->clean();
    REQUIRE(run_timed(*workload).exited_ok());
    const std::string env = slurp(workload->source_tree() / "env-all.txt");
    for (const char* line : {"LC_ALL=C\n", "CCACHE_DISABLE=1\n",
                             "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970\n",
                             "KBUILD_BUILD_USER=contest\n", "KBUILD_BUILD_HOST=contest\n"}) {
        INFO(line);
        CHECK(env.find(line) != std::string::npos);
    }
    // The config step and make clean see the same environment.
    CHECK(
        slurp(workload->source_tree() / "env-tinyconfig.txt").find("KBUILD_BUILD_USER=contest\n") !=
        std::string::npos);
    CHECK(slurp(workload->source_tree() / "env-clean.txt").find("LC_ALL=C\n") != std::string::npos);
    auto described = workload->describe()["environment"];
    CHECK(std::find(described.begin(), described.end(), "CCACHE_DISABLE=1") != described.end());
}

TEST_CASE("kernel: an unchanged key reuses the prepared tree, a changed one prepares afresh",
          "[workloads][kernel]") {
    FakeKernel fake("cache");
    auto first = fake.prepared();
    REQUIRE(calls(*first) == std::vector<std::string>{"tinyconfig"});
    auto key = first->describe()["cache_key"];

    SECTION("same source, same config: reused") {
        auto again = fake.prepared();
        CHECK(again->describe()["prepare_reused"] == true);
        CHECK(again->describe()["cache_key"] == key);
        CHECK(calls(*again) == std::vector<std::string>{"tinyconfig"});
    }
    SECTION("the same tree by another name: reused") {
        fake.options.kernel_source = fake.source.string() + "/";
        CHECK(fake.prepared()->describe()["prepare_reused"] == true);
    }
    SECTION("another config target") {
        fake.options.kernel_config = "allnoconfig";
        auto other = fake.prepared();
        CHECK(other->describe()["prepare_reused"] == false);
        CHECK(calls(*other) == std::vector<std::string>{"allnoconfig"});
    }
    SECTION("a file changed anywhere in the source tree") {
        append(fake.source / "init" / "main.c", "/* patched */\n");
        auto patched = fake.prepared();
        CHECK(patched->describe()["prepare_reused"] == false);
        CHECK(patched->describe()["cache_key"] != key);
        CHECK(slurp(patched->source_tree() / "init" / "main.c").find("patched") !=
              std::string::npos);
        CHECK(calls(*patched) == std::vector<std::string>{"tinyconfig"});
    }
    SECTION("an interrupted prepare (no key file) is redone") {
        fs::remove(fake.options.workdir / "kernel" / "key.json");
        auto redone = fake.prepared();
        CHECK(redone->describe()["prepare_reused"] == false);
        CHECK(calls(*redone) == std::vector<std::string>{"tinyconfig"});
    }
}

TEST_CASE("kernel: a config file is copied in and olddefconfig'd", "[workloads][kernel]") {
    FakeKernel fake("config-file");
    const fs::path config = fake.scratch / "my.config";
    std::ofstream(config) << "CONFIG_MINE=y\n";
    fake.options.kernel_config = config.string();
    auto workload = fake.prepared();
    CHECK(calls(*workload) == std::vector<std::string>{"olddefconfig"});
    CHECK(slurp(workload->source_tree() / ".config") == "CONFIG_MINE=y\n# olddefconfig\n");
    CHECK(fake.prepared()->describe()["prepare_reused"] == true);

    // Same path, new content: a new key.
    std::ofstream(config) << "CONFIG_MINE=m\n";
    auto changed = fake.prepared();
    CHECK(changed->describe()["prepare_reused"] == false);
    CHECK(slurp(changed->source_tree() / ".config") == "CONFIG_MINE=m\n# olddefconfig\n");
}

TEST_CASE("kernel: a tarball source is unpacked below its top folder", "[workloads][kernel]") {
    FakeKernel fake("tarball");
    const fs::path tarball = fake.scratch / "linux-source-0.0.tar.gz";
    contest::SpawnOptions quiet_tar;
    quiet_tar.cwd = fake.scratch.path();
    contest::run_checked({"tar", "-czf", tarball.string(), "linux-fake"}, quiet_tar, "tar");
    fake.options.kernel_source = tarball;
    auto workload = fake.prepared();
    CHECK(fs::exists(workload->source_tree() / "Makefile"));
    CHECK(fs::exists(workload->source_tree() / "init" / "main.c"));
    CHECK(calls(*workload) == std::vector<std::string>{"tinyconfig"});
    CHECK(workload->describe()["source"] == tarball.string());
    CHECK(fake.prepared()->describe()["prepare_reused"] == true);
}

TEST_CASE("kernel: a failed build leaves its error at the end of the log", "[workloads][kernel]") {
    FakeKernel fake("fail");
    auto workload = fake.prepared();
    workload->clean();
    auto exit = run_timed(*workload, {"FAKE_KERNEL_FAIL=1"});
    CHECK_FALSE(exit.exited_ok());
    CHECK(contest::tail_of_file(workload->log_path(), 2) ==
          "init/main.c:1:1: error: fake failure\nmake: *** [Makefile:13: all] Error 1\n");
    // The next run's clean starts a fresh log.
    workload->clean();
    CHECK(slurp(workload->log_path()).empty());
}

TEST_CASE("kernel: bad sources are refused with one clear line", "[workloads][kernel]") {
    FakeKernel fake("bad-source");
    fake.options.kernel_source = fake.scratch / "no-such-linux.tar.xz";
    CHECK_THROWS_AS(fake.prepared(), contest::EnvironmentError);
    CHECK_THROWS_WITH(fake.prepared(),
                      Catch::Contains("no-such-linux.tar.xz") && !Catch::Contains("\n"));

    std::ofstream(fake.scratch / "linux.zip") << "PK";
    fake.options.kernel_source = fake.scratch / "linux.zip";
    CHECK_THROWS_AS(fake.prepared(), contest::UsageError);

    fs::create_directories(fake.scratch / "empty");
    fake.options.kernel_source = fake.scratch / "empty";
    CHECK_THROWS_WITH(fake.prepared(), Catch::Contains("not a kernel tree"));
}

TEST_CASE("contest run with a missing kernel source exits 3 with one line",
          "[workloads][kernel][e2e]") {
    ScratchDir scratch("kernel-e2e-missing");
    auto outcome = contest::test::run_contest_binary(
        {"run", "--quiet", "--workload", "kernel", "--kernel-source",
         (scratch / "nope.tar.xz").string(), "-n", "1", "--workdir", (scratch / "work").string(),
         "--results", (scratch / "results").string(), "no_load"},
        scratch.path());
    CHECK(outcome.exit_code == 3);
    INFO(outcome.err);
    CHECK(std::count(outcome.err.begin(), outcome.err.end(), '\n') == 1);
    CHECK(outcome.err.find("nope.tar.xz") != std::string::npos);
}

TEST_CASE("kernel: a missing source is named before missing tools", "[workloads][kernel]") {
    FakeKernel fake("source-first");
    fake.options.kernel_source = fake.scratch / "no-such-linux.tar.xz";
    // No tool can be found on an empty PATH: both are missing at once.
    fs::create_directories(fake.scratch / "empty-bin");
    std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (fake.scratch / "empty-bin").c_str(), 1);
    std::string message;
    try {
        fake.prepared();
    } catch (const contest::EnvironmentError& e) {
        message = e.what();
    }
    ::setenv("PATH", saved.c_str(), 1);
    CHECK_THAT(message, Catch::Contains("no-such-linux.tar.xz") && !Catch::Contains("bison"));

    // With the source there, the same empty PATH names every missing tool in one line.
    fake.options.kernel_source = fake.source;
    ::setenv("PATH", (fake.scratch / "empty-bin").c_str(), 1);
    message.clear();
    try {
        fake.prepared();
    } catch (const contest::EnvironmentError& e) {
        message = e.what();
    }
    ::setenv("PATH", saved.c_str(), 1);
    CHECK_THAT(message, Catch::Contains("bison (Debian package bison)") &&
                            Catch::Contains("flex (Debian package flex)") &&
                            !Catch::Contains("\n"));
}
