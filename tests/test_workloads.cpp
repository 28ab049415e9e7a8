// The workload kinds apart from the kernel: word splitting, the synthetic
// generator, the command workload, the factory and the log tail.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "contest/sys/errors.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"
#include "test_helpers.h"
#include "workloads/kernel.h"
#include "workloads/synthetic_generator.h"
#include "workloads/workload.h"
#include "workloads/workload_registry.h"

using contest::split_words;
using contest::test::ScratchDir;
using contest::test::slurp;
using Words = std::vector<std::string>;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

// Runs the workload's timed command the way the run loop does: own group,
// output to the workload's log, reaped by wait_child.
contest::ExitInfo run_timed(const contest::Workload& workload) {
    contest::Command command = workload.timed_command();
    contest::SpawnOptions options;
    options.cwd = command.cwd;
    options.env_overrides = command.env_overrides;
    options.log_to(workload.log_path());
    auto started = std::chrono::steady_clock::now();
    pid_t pid = contest::spawn(command.argv, options);
    contest::GroupGuard guard(pid);
    return contest::wait_child(pid, started);
}

}  // namespace

TEST_CASE("split_words splits on blanks and keeps quoted text", "[workloads][words]") {
    CHECK(split_words("make -j8") == Words{"make", "-j8"});
    CHECK(split_words("  make \t -j8\n all  ") == Words{"make", "-j8", "all"});
    CHECK(split_words("") == Words{});
    CHECK(split_words("   ") == Words{});
    CHECK(split_words("echo 'a  b' \"c  d\"") == Words{"echo", "a  b", "c  d"});
    CHECK(split_words("pre'fix 'mid\"dle \"end") == Words{"prefix middle end"});
    CHECK(split_words("x '' \"\"") == Words{"x", "", ""});
}

TEST_CASE("split_words honours backslashes as sh does", "[workloads][words]") {
    CHECK(split_words(R"(a\ b c)") == Words{"a b", "c"});
    CHECK(split_words(R"(\'x\")") == Words{"'x\""});
    CHECK(split_words(R"('a\b')") == Words{R"(a\b)"});            // literal inside single quotes
    CHECK(split_words(R"("a\"b\\c\d")") == Words{R"(a"b\c\d)"});  // \d stays as is
    CHECK(split_words("one\\\ntwo") == Words{"onetwo"});          // line continuation
}

TEST_CASE("split_words leaves shell syntax alone: there is no shell", "[workloads][words]") {
    CHECK(split_words("echo $HOME *.c ; ls | wc > out") ==
          Words{"echo", "$HOME", "*.c", ";", "ls", "|", "wc", ">", "out"});
    CHECK(split_words("~/bin/x `date`") == Words{"~/bin/x", "`date`"});
}

TEST_CASE("split_words rejects unbalanced quotes and a trailing backslash", "[workloads][words]") {
    CHECK_THROWS_AS(split_words("echo 'oops"), contest::UsageError);
    CHECK_THROWS_AS(split_words("echo \"oops"), contest::UsageError);
    CHECK_THROWS_AS(split_words("echo \"a\\\""), contest::UsageError);
    CHECK_THROWS_AS(split_words("echo oops\\"), contest::UsageError);
    CHECK_THROWS_WITH(split_words("a 'b"), Catch::Contains("unbalanced single quote"));
}

TEST_CASE("join_words quotes so that split_words gives the words back", "[workloads][words]") {
    const Words words{"make", "-j8", "a b", "it's", "", "\"q\"", "back\\slash", "$X"};
    CHECK(split_words(contest::join_words(words)) == words);
    CHECK(contest::join_words({"make", "-j8"}) == "make -j8");
}

TEST_CASE("shell_quoted words paste back into sh and an interactive bash as themselves",
          "[workloads][words]") {
    const Words words{"plain-1.0",   "",           "a b",         "it's",     "\"q\"",
                      "back\\slash", "$X",         "$(id)",       "`id`",     "a;b|c&d>e",
                      "line\nbreak", "tab\there",  "\x1b[31mred", "bell\x07", "K\xc3\xb6nig",
                      "bad\xff",     "c1\xc2\x9b", "!!",          "a!$b",     "!-1",
                      "*?~#"};
    for (const auto& w : Words{"\x1b[31mred", "bell\x07", "bad\xff", "c1\xc2\x9b"}) {
        INFO(contest::printable(w));
        CHECK(contest::is_printable(contest::shell_quoted(w)));
    }
    CHECK(contest::shell_quoted("plain-1.0") == "plain-1.0");
    std::string line = "set --";
    for (const auto& w : words) line += " " + contest::shell_quoted(w);
    std::string expected;
    for (const auto& w : words) expected += "[" + w + "]";
    ScratchDir dir("shell-quoted");
    // bash with history expansion on, as at a prompt: '!' inside double
    // quotes would be expanded there.
    const std::string paste = line + "\nprintf '[%s]' \"$@\"\n";
    contest::test::put_file(dir / "sh", paste);
    contest::test::put_file(dir / "bash", "set -o history -H\necho earlier >/dev/null\n" + paste);
    for (const char* shell : {"sh", "bash"}) {
        INFO(shell << ": " << contest::printable(line));
        CHECK(contest::test::shell_output(std::string(shell) + " '" + (dir / shell).string() +
                                          "' 2>/dev/null") == expected);
    }
}

TEST_CASE("the synthetic generator is deterministic", "[workloads][synthetic]") {
    auto a = contest::generate_synthetic_project(7);
    auto b = contest::generate_synthetic_project(7);
    REQUIRE(a.files.size() == b.files.size());
    for (size_t i = 0; i < a.files.size(); ++i) {
        CHECK(a.files[i].relative_path == b.files[i].relative_path);
        CHECK(a.files[i].content == b.files[i].content);
    }
    CHECK(a.content_hash == b.content_hash);
    CHECK(a.hash_hex().size() == 16);

    auto c = contest::generate_synthetic_project(8);
    CHECK(c.content_hash != a.content_hash);
    // A larger project keeps the smaller one's units: each unit depends only
    // on its own index.
    auto unit = [](const contest::SyntheticProject& p, const std::string& name) {
        for (const auto& f : p.files)
            if (f.relative_path == name) return f.content.substr(f.content.find('\n'));
        return std::string();
    };
    CHECK(unit(a, "src/unit_0003.c") == unit(c, "src/unit_0003.c"));
    CHECK_FALSE(unit(a, "src/unit_0003.c").empty());
}

TEST_CASE("the synthetic project has the promised shape", "[workloads][synthetic]") {
    auto project = contest::generate_synthetic_project(5);
    int units = 0, headers = 0;
    std::string makefile;
    for (const auto& f : project.files) {
        const std::string path = f.relative_path.string();
        if (path.starts_with("src/unit_")) {
            ++units;
            CHECK(f.content.find("#include \"synth/synth.h\"") != std::string::npos);
            CHECK(f.content.find("struct ") != std::string::npos);
            CHECK(f.content.find("for (") != std::string::npos);
        }
        if (path.starts_with("include/")) ++headers;
        if (path == "Makefile") makefile = f.content;
    }
    CHECK(units == 5);
    CHECK(headers >= 4);
    CHECK(makefile.find("$(CC)") != std::string::npos);
    CHECK(makefile.find("-O2") != std::string::npos);
    CHECK(makefile.find("clean:") != std::string::npos);
    CHECK_THROWS_AS(contest::generate_synthetic_project(0), contest::UsageError);
}

TEST_CASE("the synthetic project is written only when missing or different",
          "[workloads][synthetic]") {
    ScratchDir scratch("wl-synthetic-write");
    auto project = contest::generate_synthetic_project(3);
    const fs::path dir = scratch / "synthetic-3";
    CHECK(contest::write_synthetic_project(project, dir));
    CHECK(fs::exists(dir / contest::kSyntheticStampFile));
    for (const auto& f : project.files) CHECK(slurp(dir / f.relative_path) == f.content);
    CHECK_FALSE(contest::write_synthetic_project(project, dir));

    // Build products beside the sources do not count as a difference...
    write_text(dir / "obj/unit_0000.o", "object");
    CHECK_FALSE(contest::write_synthetic_project(project, dir));
    // ...an edited source does, and so does a missing one.
    write_text(dir / "src/unit_0001.c", "int edited;\n");
    CHECK(contest::write_synthetic_project(project, dir));
    CHECK(slurp(dir / "src/unit_0001.c") != "int edited;\n");
    fs::remove(dir / "Makefile");
    CHECK(contest::write_synthetic_project(project, dir));
    CHECK_FALSE(contest::write_synthetic_project(project, dir));
}

TEST_CASE("the synthetic workload compiles its project and cleans it",
          "[workloads][synthetic][slow]") {
    ScratchDir scratch("wl-synthetic-run");
    contest::WorkloadOptions options;
    options.kind = "synthetic";
    options.workdir = scratch.path();
    options.synthetic_size = 2;
    options.jobs = 3;
    auto workload = contest::make_workload(options);
    contest::Progress quiet(contest::Progress::Mode::kQuiet);
    workload->prepare(quiet);
    CHECK(workload->name() == "synthetic");
    CHECK(workload->source_tree() == scratch.path() / "synthetic-2");

    auto command = workload->timed_command();
    CHECK(command.argv.at(0) == "make");
    CHECK(command.argv.at(1) == "-j3");
    CHECK(std::find(command.env_overrides.begin(), command.env_overrides.end(), "LC_ALL=C") !=
          command.env_overrides.end());

    for (int run = 0; run < 2; ++run) {
        workload->clean();
        CHECK_FALSE(fs::exists(workload->source_tree() / "synthetic"));
        auto exit = run_timed(*workload);
        CHECK(exit.exited_ok());
        CHECK(fs::exists(workload->source_tree() / "synthetic"));
        CHECK(slurp(workload->log_path()).find("-O2") != std::string::npos);
    }
    auto d = workload->describe();
    CHECK(d["kind"] == "synthetic");
    CHECK(d["synthetic_size"] == 2);
    CHECK(d["jobs"] == 3);
    CHECK(d["project_hash"] == contest::generate_synthetic_project(2).hash_hex());
    CHECK_FALSE(d["compiler"].get<std::string>().empty());
}

TEST_CASE("effective_jobs is 4 x online CPUs unless set", "[workloads]") {
    CHECK(contest::effective_jobs(5) == 5);
    CHECK(contest::effective_jobs(0) == 4 * static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN)));
}

TEST_CASE("make_workload refuses unknown kinds and incomplete commands", "[workloads]") {
    contest::WorkloadOptions options;
    options.workdir = fs::temp_directory_path();
    options.kind = "bogus";
    CHECK_THROWS_AS(contest::make_workload(options), contest::UsageError);
    options.kind = "command";
    CHECK_THROWS_WITH(contest::make_workload(options), Catch::Contains("--workload-cmd"));
    options.workload_cmd = "true";
    options.prepare_cmd = "echo 'unbalanced";
    CHECK_THROWS_WITH(contest::make_workload(options), Catch::Contains("--prepare-cmd"));
    options.prepare_cmd.clear();
    CHECK(contest::make_workload(options)->name() == "command");
    options.kind = "synthetic";
    options.synthetic_size = 0;
    CHECK_THROWS_AS(contest::make_workload(options), contest::UsageError);
    options.kind = "kernel";
    options.kernel_config = "no-such-config";
    CHECK_THROWS_WITH(contest::make_workload(options), Catch::Contains("--kernel-config"));
}

TEST_CASE("make_workload makes each registered kind and names them all when one is unknown",
          "[workloads]") {
    contest::WorkloadOptions options;
    options.workdir = fs::temp_directory_path();
    options.workload_cmd = "true";  // what the command kind needs
    for (const auto& info : contest::workload_registry()) {
        INFO(info.name);
        CHECK_FALSE(info.help.empty());
        options.kind = std::string(info.name);
        CHECK(contest::make_workload(options)->name() == info.name);
        CHECK(contest::find_workload(info.name) == &info);
    }
    options.kind = "bogus";
    CHECK_THROWS_WITH(
        contest::make_workload(options),
        "--workload: unknown workload 'bogus' (" + contest::workload_names(", ", " or ") + ")");
    CHECK(contest::workload_names(", ", " or ") == "synthetic, kernel or command");
}

TEST_CASE("the command workload runs the user's argv without a shell", "[workloads][command]") {
    ScratchDir scratch("wl-command");
    contest::WorkloadOptions options;
    options.kind = "command";
    options.workdir = scratch.path();
    options.prepare_cmd = "touch 'prepared file'";
    options.clean_cmd = "rm -f built";
    // The quotes keep the script one word; $0 shows no shell expanded it first.
    options.workload_cmd = "sh -c 'pwd > built; echo \"$0\" >> built' '$literal'";
    auto workload = contest::make_workload(options);
    contest::Progress quiet(contest::Progress::Mode::kQuiet);
    workload->prepare(quiet);
    CHECK(fs::exists(scratch / "prepared file"));

    write_text(scratch / "built", "stale");
    workload->clean();
    CHECK_FALSE(fs::exists(scratch / "built"));
    CHECK(run_timed(*workload).exited_ok());
    CHECK(slurp(scratch / "built") == fs::canonical(scratch.path()).string() + "\n$literal\n");

    auto d = workload->describe();
    CHECK(d["workload_cmd"] == Words{"sh", "-c", "pwd > built; echo \"$0\" >> built", "$literal"});
    CHECK(d["prepare_cmd"] == Words{"touch", "prepared file"});
    CHECK(workload->source_tree().empty());
}

TEST_CASE("a failing prepare or clean command is reported with its log", "[workloads][command]") {
    ScratchDir scratch("wl-command-fail");
    contest::WorkloadOptions options;
    options.kind = "command";
    options.workdir = scratch.path();
    options.workload_cmd = "true";
    options.clean_cmd = "false";
    auto workload = contest::make_workload(options);
    contest::Progress quiet(contest::Progress::Mode::kQuiet);
    workload->prepare(quiet);
    CHECK_THROWS_WITH(workload->clean(), Catch::Contains("--clean-cmd"));
}

TEST_CASE("tail_of_file gives the last lines", "[workloads][log]") {
    ScratchDir scratch("wl-tail");
    const fs::path log = scratch / "log";
    write_text(log, "one\ntwo\nthree\nfour\n");
    CHECK(contest::tail_of_file(log, 2) == "three\nfour\n");
    CHECK(contest::tail_of_file(log, 4) == "one\ntwo\nthree\nfour\n");
    CHECK(contest::tail_of_file(log, 10) == "one\ntwo\nthree\nfour\n");
    CHECK(contest::tail_of_file(log, 0).empty());
    write_text(log, "one\ntwo\nno newline");
    CHECK(contest::tail_of_file(log, 2) == "two\nno newline\n");
    CHECK(contest::tail_of_file(scratch / "missing", 3).empty());

    // Longer than one read block: only the end is read.
    std::string big;
    for (int i = 0; i < 20000; ++i) big += "line " + std::to_string(i) + "\n";
    write_text(log, big);
    CHECK(contest::tail_of_file(log, 3) == "line 19997\nline 19998\nline 19999\n");
}

TEST_CASE("missing kernel build tools are named with their packages", "[workloads][kernel]") {
    ScratchDir scratch("wl-tools");
    auto missing = contest::missing_kernel_tools("", scratch.path());
    std::map<std::string, std::string> packages;
    for (const auto& m : missing) packages[m.what] = m.package;
    CHECK(packages["make"] == "make");
    CHECK(packages["gcc"] == "gcc");
    CHECK(packages["bc"] == "bc");
    CHECK(packages["bison"] == "bison");
    CHECK(packages["flex"] == "flex");
    CHECK(packages["libelf headers"] == "libelf-dev");
    CHECK(packages["openssl headers"] == "libssl-dev");

    write_text(scratch / "libelf.h", "");
    write_text(scratch / "openssl/ssl.h", "");
    for (const auto& m : contest::missing_kernel_tools("", scratch.path()))
        CHECK(m.what.find("headers") == std::string::npos);
}

TEST_CASE("the newest linux-source tarball is found by version", "[workloads][kernel]") {
    ScratchDir scratch("wl-newest");
    CHECK_FALSE(contest::newest_kernel_source(scratch.path()));
    for (const char* name :
         {"linux-source-6.1.tar.xz", "linux-source-6.9.tar.gz", "linux-source-6.10.tar.bz2",
          "linux-source-7.0.txt", "linux-config-6.1"})
        write_text(scratch / name, "");
    CHECK(contest::newest_kernel_source(scratch.path()) == scratch / "linux-source-6.10.tar.bz2");
}
