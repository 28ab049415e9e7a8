// `contest load NAME` for each of contest's own loads, through the real
// binary: a work rate above 0, and Ctrl-C leaves no process and no file.
#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "contest/sys/spawn.h"
#include "loads/load_files.h"
#include "test_helpers.h"

using namespace contest;

namespace {

std::vector<std::string> load_args(const std::string& name, const test::ScratchDir& scratch) {
    std::vector<std::string> args = {"load", name,        "--load-size-mib",
                                     "256",  "--workdir", (scratch / "work").string()};
    if (name == "io_other") {
        std::filesystem::create_directories(scratch / "other-disk");
        args.insert(args.end(), {"--io-other-dir", (scratch / "other-disk").string()});
    }
    return args;
}

std::size_t files_under(const std::filesystem::path& dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (!it->is_directory()) ++n;
    return n;
}

}  // namespace

TEST_CASE("contest load runs each load and reports a work rate above 0", "[loads][e2e][slow]") {
    auto name = GENERATE(as<std::string>{}, "io_load", "io_other", "read_load", "list_load",
                         "mem_load", "ctar_load", "xtar_load", "dbench_load");
    if (name == "dbench_load") test::require_program("dbench");
    INFO(name);
    test::ScratchDir scratch("e2e-load-" + name);
    auto args = load_args(name, scratch);
    // dbench says its rate once a second, after a start of its own.
    args.insert(args.end(),
                {"--duration", name == "dbench_load" ? "3" : "1.5", "--format", "json"});
    auto outcome = test::run_contest_binary(args, scratch.path());
    INFO(outcome.err);
    REQUIRE(outcome.exit_code == 0);
    auto report = nlohmann::json::parse(outcome.out);
    CHECK(report["load"] == name);
    CHECK(report["rate_per_s"].get<double>() > 0);
    CHECK_FALSE(report.contains("failure"));
    CHECK(report["facts"].is_object());
    CHECK(files_under(scratch / "work") == 0);
    CHECK(files_under(scratch / "other-disk") == 0);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("Ctrl-C during each load leaves no process and no load file behind",
          "[loads][e2e][slow]") {
    auto name = GENERATE(as<std::string>{}, "io_load", "io_other", "read_load", "list_load",
                         "mem_load", "ctar_load", "xtar_load", "dbench_load");
    if (name == "dbench_load") test::require_program("dbench");
    INFO(name);
    test::ScratchDir scratch("e2e-intr-" + name);
    auto args = load_args(name, scratch);
    args.insert(args.end(), {"--duration", "120"});
    pid_t contest = test::start_contest(args, scratch.path());
    // Interrupt once the load is at work: contest says so on stderr before it
    // starts the load; past that, once the load has made files (those that
    // make any do within a second or two), a moment more for them to grow.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (test::slurp(scratch / "stderr").find("preparing") == std::string::npos &&
           std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (files_under(scratch / "work") == 0 && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    REQUIRE(::kill(contest, SIGINT) == 0);
    auto outcome = test::finish_contest(contest, scratch.path());
    INFO(outcome.err);
    CHECK(outcome.exit_code == 130);
    CHECK(test::leftover_processes().empty());
    CHECK(files_under(scratch / "work") == 0);
    CHECK(files_under(scratch / "other-disk") == 0);
}

TEST_CASE("contest load ctar_load --tar-source archives the tree it is given", "[loads][e2e]") {
    test::ScratchDir scratch("e2e-tar-source");
    auto tree = scratch / "tree";
    std::filesystem::create_directories(tree / "sub");
    std::string text(256 << 10, 'c');
    for (char f = '0'; f < '8'; ++f) std::ofstream(tree / "sub" / std::string{'f', f}) << text;
    auto args = load_args("ctar_load", scratch);
    args.insert(args.end(),
                {"--tar-source", tree.string(), "--duration", "1.5", "--format", "json"});
    auto outcome = test::run_contest_binary(args, scratch.path());
    INFO(outcome.err);
    REQUIRE(outcome.exit_code == 0);
    auto report = nlohmann::json::parse(outcome.out);
    CHECK(report["facts"]["source"] == tree.string());
    CHECK(report["facts"]["source_from"] == "--tar-source");
    CHECK(report["facts"]["source_bytes"].get<std::uint64_t>() >= 8 * (256u << 10));
    CHECK(report["rate_per_s"].get<double>() > 0);
    CHECK(test::leftover_processes().empty());

    // A tree that is not there: exit 3 and one line naming it.
    args = load_args("ctar_load", scratch);
    args.insert(args.end(), {"--tar-source", (scratch / "nowhere").string(), "--duration", "1"});
    outcome = test::run_contest_binary(args, scratch.path());
    CHECK(outcome.exit_code == 3);
    // Progress lines aside, one line says what is wrong.
    std::istringstream lines(outcome.err);
    std::vector<std::string> naming;
    for (std::string line; std::getline(lines, line);)
        if (line.find("nowhere") != std::string::npos) naming.push_back(line);
    REQUIRE(naming.size() == 1);
    CHECK_THAT(naming[0],
               Catch::StartsWith("contest: ctar_load: needs the workload's source tree"));
}
