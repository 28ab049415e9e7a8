// An external step that fails (a clean or prepare command, make clean, make
// tinyconfig) is the workload's failure, never contest's "internal error":
// a failed clean fails its run and the suite goes on; a failed set-up step
// ends the suite with exit 1 and one line naming the step and its log.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "test_helpers.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

// `contest run` of the command workload `true` under no_load, with extra options.
std::vector<std::string> command_run(const test::ScratchDir& dir, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "run",  "-k",       "steps", "-w",     "command", "--workload-cmd",
        "true", "--warmup", "0",     "--quiet"};
    args.insert(args.end(), {"--workdir", (dir / "work").string()});
    args.insert(args.end(), {"--results", (dir / "results").string(), "no_load"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

// Replaces the first `from` in file with `to`.
void edit(const fs::path& file, const std::string& from, const std::string& to) {
    std::string text = test::slurp(file);
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::trunc) << text;
}

WorkloadOptions fake_kernel(const test::ScratchDir& dir) {
    const fs::path source = dir / "linux-fake";
    fs::copy(fs::path(CONTEST_TEST_DATA) / "fake-kernel", source, fs::copy_options::recursive);
    WorkloadOptions options;
    options.kind = "kernel";
    options.workdir = dir / "work";
    options.kernel_source = source;
    options.jobs = 1;
    return options;
}

}  // namespace

TEST_CASE("a failing --clean-cmd fails each run, names the step, and the suite goes on",
          "[e2e][steps]") {
    test::ScratchDir dir("step-clean");
    auto o = test::run_contest_binary(
        command_run(dir, {"--clean-cmd", "sh -c 'echo cannot clean here; exit 5'", "-n", "2"}),
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK_THAT(o.err, !Catch::Contains("internal error"));
    CHECK_THAT(o.err, Catch::Contains("--clean-cmd") && Catch::Contains("command-clean.log"));
    CHECK_THAT(o.err, Catch::Contains("cannot clean here"));  // the log's tail
    const auto files = test::result_files(dir / "results");
    REQUIRE(files.size() == 1);
    const auto j = nlohmann::json::parse(test::slurp(files[0]));
    REQUIRE(j["runs"].size() == 2);
    for (const auto& run : j["runs"]) {
        CHECK(run["status"] == "workload_failed");
        CHECK_THAT(run["reason"].get<std::string>(), Catch::Contains("--clean-cmd") &&
                                                         Catch::Contains("exit 5") &&
                                                         Catch::Contains("command-clean.log"));
    }
    CHECK(j["complete"] == true);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a failing --prepare-cmd ends the suite with exit 1 and one line", "[e2e][steps]") {
    test::ScratchDir dir("step-prepare");
    auto o = test::run_contest_binary(command_run(dir, {"--prepare-cmd", "false", "-n", "1"}),
                                      dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_THAT(o.err, !Catch::Contains("internal error"));
    CHECK_THAT(o.err, Catch::Contains("--prepare-cmd 'false' failed") &&
                          Catch::Contains("command-prepare.log"));
    CHECK(test::result_files(dir / "results").empty());
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("kernel: a failing make tinyconfig or make clean is a StepFailed naming it and its log",
          "[workloads][kernel][steps]") {
    test::ScratchDir dir("step-kernel");
    Progress quiet(Progress::Mode::kQuiet);
    WorkloadOptions options = fake_kernel(dir);
    const std::string config_rule = "\t@echo \"CONFIG_FAKE_$@=y\" > .config";
    edit(options.kernel_source / "Makefile", config_rule, "\t@echo no config here; exit 2");
    try {
        make_workload(options)->prepare(quiet);
        FAIL("make tinyconfig failed, yet prepare went on");
    } catch (const StepFailed& e) {
        CHECK(e.step() == "kernel: make tinyconfig");
        CHECK(e.log() == (options.workdir / "kernel" / "configure.log").string());
        CHECK_THAT(e.what(),
                   Catch::Contains("make tinyconfig failed") && Catch::Contains("configure.log"));
    }

    edit(options.kernel_source / "Makefile", "\t@echo no config here; exit 2", config_rule);
    auto workload = make_workload(options);
    workload->prepare(quiet);
    edit(workload->source_tree() / "Makefile", "\t@rm -f vmlinux", "\t@echo stuck; exit 2");
    try {
        workload->clean();
        FAIL("make clean failed, yet clean returned");
    } catch (const StepFailed& e) {
        CHECK(e.step() == "kernel: make clean");
        CHECK_THAT(e.log(), Catch::EndsWith("clean.log"));
        CHECK_THAT(test::slurp(e.log()), Catch::Contains("stuck"));
    }
}

TEST_CASE("contest run of a kernel whose make tinyconfig fails exits 1 with one line",
          "[e2e][steps][kernel]") {
    test::ScratchDir dir("step-kernel-e2e");
    WorkloadOptions options = fake_kernel(dir);
    edit(options.kernel_source / "Makefile", "\t@echo \"CONFIG_FAKE_$@=y\" > .config",
         "\t@echo no config here; exit 2");
    auto o = test::run_contest_binary(
        {"run", "-w", "kernel", "--kernel-source", options.kernel_source.string(), "-n", "1",
         "--workdir", options.workdir.string(), "--results", (dir / "results").string(), "--quiet",
         "no_load"},
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 1);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK_THAT(o.err, Catch::Contains("kernel: make tinyconfig failed (exit 2)") &&
                          Catch::Contains("configure.log") && !Catch::Contains("internal error"));
    CHECK(test::leftover_processes().empty());
}
