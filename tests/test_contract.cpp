// docs/contract.md is the user's contract ("what is not here is not
// promised"): these tests hold it to the binary. Every command and every
// --option the binary has is named there, and it names none the binary does
// not have; every number option shows its range in --help; and the worked
// examples of docs/report.md are what contest really prints.
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "contest/cli/cli_common.h"
#include "contest/cli/run_options.h"
#include "contest/run/plan/places.h"
#include "contest/sys/text.h"
#include "test_helpers.h"

using namespace contest;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = CONTEST_SOURCE_DIR;

std::set<std::string> long_options_in(const std::string& text) {
    static const std::regex option("--([a-z][a-z0-9-]*[a-z0-9])");
    std::set<std::string> out;
    for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it)
        out.insert(it->str());
    return out;
}

std::string help_of(const test::ScratchDir& dir, std::vector<std::string> args) {
    auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    return o.out;
}

// The commands `contest --help` lists, one a line under "commands:".
std::vector<std::string> commands(const std::string& top_help) {
    std::vector<std::string> out;
    std::istringstream in(top_help.substr(top_help.find("commands:\n")));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line) && line.starts_with("  "))
        out.push_back(line.substr(2, line.find(' ', 2) - 2));
    return out;
}

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

}  // namespace

TEST_CASE("docs/contract.md names every command and option, and only those", "[contract][e2e]") {
    test::ScratchDir dir("contract");
    const std::string contract = test::slurp(kSource / "docs/contract.md");
    REQUIRE_FALSE(contract.empty());
    const std::string top = help_of(dir, {"--help"});
    const auto names = commands(top);
    REQUIRE(names.size() >= 7);

    std::set<std::string> in_help = long_options_in(top);
    for (const auto& name : names) {
        INFO("command " << name);
        CHECK_THAT(contract, Catch::Contains("contest " + name + " "));
        for (const auto& option : long_options_in(help_of(dir, {name, "--help"}))) {
            INFO("contest " << name << " " << option << " is not in docs/contract.md");
            CHECK_THAT(contract, Catch::Contains("`" + option) || Catch::Contains(" " + option));
            in_help.insert(option);
        }
    }
    for (const auto& option : long_options_in(contract)) {
        INFO(option << " is in docs/contract.md but in no command's --help");
        CHECK(in_help.count(option) == 1);
    }
    // Each command of the contract's own list is one the binary has.
    const auto block = contract.substr(contract.find("## Commands"));
    std::istringstream in(block.substr(0, block.find("\n```\n", block.find("```") + 3)));
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("contest ")) {
            INFO(line);
            CHECK(std::find(names.begin(), names.end(), words(line)[1]) != names.end());
        }
}

TEST_CASE("every number option of every command shows its range in --help", "[contract][e2e]") {
    test::ScratchDir dir("contract-ranges");
    // "  -n [ --runs ] N (1 to 1000, or auto) (=3)   help": the option, its
    // value's name and what follows.
    static const std::regex line_re(R"(^  (?:-\w \[ )?--([a-z0-9-]+)(?: \])? (\S+)(.*)$)");
    const std::set<std::string> number_names = {"N", "S", "NS", "PCT", "A", "HZ", "B", "MiB"};
    int numbers = 0;
    for (const auto& name : commands(help_of(dir, {"--help"}))) {
        std::istringstream in(help_of(dir, {name, "--help"}));
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (!std::regex_match(line, m, line_re) || !number_names.count(m[2].str())) continue;
            ++numbers;
            INFO("contest " << name << " --" << m[1].str() << ": " << line);
            CHECK(std::regex_search(m[3].str(), std::regex(R"(^ \([-0-9.e]+ to [0-9.e]+[,)])")));
        }
    }
    CHECK(numbers > 20);
}

TEST_CASE("the examples in docs/report.md are what contest prints on the fixtures",
          "[contract][e2e]") {
    test::ScratchDir dir("contract-report");
    const std::string doc = test::slurp(kSource / "docs/report.md");
    int examples = 0;
    for (std::size_t at = doc.find("```\n$ contest "); at != std::string::npos;
         at = doc.find("```\n$ contest ", at + 1)) {
        const std::size_t body = doc.find('\n', at + 4) + 1;
        const std::string command = doc.substr(at + 6, body - at - 7);
        const std::string shown = doc.substr(body, doc.find("```\n", body) - body);
        std::vector<std::string> args = words(command);
        args.erase(args.begin());  // "contest"
        for (auto& a : args)
            if (a.starts_with("tests/")) a = (kSource / a).string();
        auto o = test::run_contest_binary(args, dir.path());
        INFO(command << "\n(regenerate the example with it, from the source folder)");
        CHECK(o.exit_code == 0);
        CHECK(o.out == shown);
        ++examples;
    }
    CHECK(examples >= 2);
}

// ctest runs each test by its name, which catch_discover_tests takes from
// this binary's list: a name that starts with '-' is read as an option, and
// one holding ';' is cut there (a CMake list), matches no test, and "passes"
// with none run (56 did until this test). Asked of the binary itself.
TEST_CASE("no test name starts with a dash or holds a semicolon", "[contract]") {
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    test::ScratchDir dir("test-names");
    test::shell_output("'" + self + "' --list-test-names-only > '" + (dir / "names").string() +
                       "'");
    const std::string names = test::slurp(dir / "names");
    std::size_t listed = 0;
    for (const auto& name : split_lines(names)) {
        if (name.empty()) continue;
        ++listed;
        INFO(name);
        CHECK(name.front() != '-');
        CHECK(name.find(';') == std::string::npos);
    }
    CHECK(listed > 100);
}

TEST_CASE("the manual page names every command, option and load, groff reads it without a warning",
          "[contract][e2e]") {
    test::ScratchDir dir("manual");
    const std::string man = help_of(dir, {"help", "man"});
    REQUIRE(man.starts_with(".TH CONTEST 1"));
    // roff writes a '-' as "\-".
    auto in_roff = [](const std::string& option) {
        std::string out;
        for (char c : option) out += c == '-' ? std::string("\\-") : std::string(1, c);
        return out;
    };
    const auto names = commands(help_of(dir, {"--help"}));
    for (const auto& name : names) {
        INFO("command " << name);
        std::string heading = "CONTEST " + name;
        for (char& c : heading) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        CHECK_THAT(man, Catch::Contains(".SH \"" + heading + "\""));
        for (const auto& option : long_options_in(help_of(dir, {name, "--help"}))) {
            INFO(option);
            CHECK_THAT(man, Catch::Contains("\\fB" + in_roff(option) + "\\fR"));
        }
    }
    std::istringstream loads(help_of(dir, {"loads"}));
    int load_names = 0;
    for (std::string line; std::getline(loads, line);) {
        const auto w = words(line);
        if (w.empty() || w[0].find("_load") == std::string::npos) continue;
        ++load_names;
        CHECK_THAT(man, Catch::Contains(".B " + in_roff(w[0]) + "\n"));
    }
    CHECK(load_names >= 5);
    if (test::shell_output("command -v groff").empty()) return;
    std::ofstream(dir / "contest.1") << man;
    CHECK(test::shell_output("groff -man -Tutf8 -ww -z " + (dir / "contest.1").string() +
                             " 2>&1") == "");
}

TEST_CASE("the bash completion completes commands, each command's options and load names",
          "[contract][e2e]") {
    test::ScratchDir dir("completion");
    std::ofstream(dir / "contest.bash") << help_of(dir, {"help", "bash-completion"});
    auto complete = [&](const std::string& line) {
        return test::bash_completions(dir / "contest.bash", line);
    };
    CHECK(complete("contest re") == "report");
    CHECK(complete("contest run --lab") == "--label");
    CHECK(complete("contest run --latency-exec-c") == "--latency-exec-cmd");
    CHECK(complete("contest compare --lab").find("--label") == std::string::npos);
    CHECK(complete("contest run cpu") == "cpu_load");
    CHECK(complete("contest run --load me") == "mem_load");
    CHECK(complete("contest help m") == "man");
}

TEST_CASE(
    "every option of contest run that needs another is refused without it, in one line naming "
    "both, and --help and the contract say what it needs",
    "[contract][e2e]") {
    test::ScratchDir dir("needs");
    // A value each such option takes (its default where it has one would
    // do, but not every one has).
    const std::map<std::string, std::string> value = {
        {"target-ci", "3"},
        {"target-mde", "4"},
        {"max-runs", "5"},
        {"budget", "10m"},
        {"adjust", "outside"},
        {"vary-label", "{label}"},
        {"vm-accel", "tcg"},
        {"vm-cpus", "2"},
        {"vm-memory", "512"},
        {"vm-disk", "128"},
        {"vm-boot-timeout", "30"},
        {"vm-timeout", "60"},
        {"vm-append", "quiet"},
        {"runs-per-boot", "2"},
        {"boot-append", "a=quiet"},
        {"boot-method", "grub"},
        {"boot-max", "4"},
        {"build-config", "some.config"},
        {"build-cache-max", "5"},
        {"boot-on-failure", "stop"},
        {"boot-root", "/"},
        {"latency-why-us", "500"},
        {"latency-interval-us", "2000"},
        {"latency-method", "poll"},
        {"latency-policy", "fifo"},
        {"latency-priority", "10"},
        {"latency-dist", "2000"},
        {"latency-raw", "raw"},
        {"latency-exec-cmd", "true"},
        {"latency-exec-missed-ms", "50"},
    };
    const std::string help = help_of(dir, {"run", "--help"});
    const std::string contract = test::slurp(kSource / "docs/contract.md");
    RunOptions options;
    int checked = 0;
    for (const auto& o : options.table()) {
        if (o.needs.empty()) continue;
        const std::string name = o.description->long_name();
        INFO("--" << name);
        std::vector<std::string> words = {"run"};
        if (o.description->semantic()->max_tokens() == 0) {
            words.push_back("--" + name);
        } else {
            REQUIRE(value.count(name) == 1);  // the test knows a value for it
            words.push_back("--" + name + "=" + value.at(name));
        }
        const auto out = test::run_contest_binary(words, dir.path());
        CHECK(out.exit_code == 2);
        CHECK(out.err == "contest: --" + name + " needs " + needs_text(o.needs) + "\n");
        // --help (and the manual, made of the same words) says it first.
        const std::string first_need = "--" + o.needs.front().substr(0, o.needs.front().find('='));
        CHECK(o.description->description().starts_with(first_need));
        CHECK(help.find("--" + name + " ") != std::string::npos);
        // The contract's row for it (one whose first cell names it) names
        // what it needs.
        std::istringstream rows(contract);
        std::string row;
        bool found = false;
        const std::regex names_it("`--" + name + "[ `]");
        for (std::string line; std::getline(rows, line);) {
            if (!line.starts_with("| ")) continue;
            const std::string first_cell = line.substr(0, line.find(" | ", 2));
            if (!std::regex_search(first_cell, names_it)) continue;
            // Another command's option of the same name (compare --adjust)
            // has a row of its own: one of the rows is run's and says it.
            found = found || line.find(first_need) != std::string::npos;
        }
        CHECK(found);
        ++checked;
    }
    CHECK(checked >= 20);
}

TEST_CASE(
    "every place's exclusions, read from the place table, are refused in one line naming both, "
    "and --help, the manual and the contract say them",
    "[contract][e2e]") {
    test::ScratchDir dir("place-excludes");
    // The words each excluded option takes, good enough to reach the
    // place's check (--latency-raw needs --latency).
    const std::map<std::string, std::vector<std::string>> value = {
        {"vary", {"vm.swappiness=10,60"}},
        {"resume", {(dir / "old.json").string()}},
        {"label", {"x"}},
        {"latency-raw", {"raw", "--latency", "audio"}},
    };
    auto flat = [](const std::string& text) {
        std::string out;
        for (char c : text)
            if (!std::isspace(static_cast<unsigned char>(c)) || (!out.empty() && out.back() != ' '))
                out += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
        return out;
    };
    const std::string help = flat(help_of(dir, {"run", "--help"}));
    const std::string man = help_of(dir, {"help", "man"});
    const std::string contract = test::slurp(kSource / "docs/contract.md");
    int checked = 0;
    for (const PlaceInfo* place : place_table()) {
        if (place->option.empty()) continue;
        const std::string option(place->option);
        INFO("--" << option);
        const auto row_at = contract.find("\n| `--" + option + " ");
        REQUIRE(row_at != std::string::npos);
        const std::string row = contract.substr(row_at, contract.find('\n', row_at + 1) - row_at);
        CHECK_THAT(help, Catch::Contains(exclusions_help(*place)));
        for (const PlaceExclusion& e : place->excludes) {
            const std::string named =
                "--" + std::string(e.option) + (e.value.empty() ? "" : " " + std::string(e.value));
            INFO(named);
            CHECK_THAT(row, Catch::Contains("`" + named + "`"));
            std::vector<std::string> args = {"run", "--" + option, "a=x", "--" + option, "b=y"};
            args.push_back("--" + std::string(e.option));
            if (e.value.empty()) {
                const auto& words = value.at(std::string(e.option));
                args.insert(args.end(), words.begin(), words.end());
            } else {
                args.emplace_back(e.value);
            }
            args.push_back("no_load");
            const auto o = test::run_contest_binary(args, dir.path());
            CHECK(o.exit_code == 2);
            CHECK(o.err == "contest: " + exclusion_text(*place, e) + "\n");
            ++checked;
        }
        // The manual's line for the option carries the same words (roff's '-' is "\-").
        std::string in_roff;
        for (char c : exclusions_help(*place))
            in_roff += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK_THAT(flat(man), Catch::Contains(in_roff));
    }
    CHECK(checked >= 8);
}
