// Every command's options are one table (contest/sys/option_table.h,
// contest/cli/cli_common.h's CommandLine): its parse, its --help and the
// manual page are all made of the rows, so what --help lists is what the
// table has.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/sys/errors.h"
#include "test_helpers.h"

using namespace contest;

namespace {

// Every command's facts, as manual.cpp collects them: each command run
// with its parser collecting its table's rows instead of parsing.
std::vector<CommandFacts> every_commands_rows() {
    std::vector<CommandFacts> facts;
    collect_command_facts(&facts);
    for (const auto& s : subcommands()) {
        std::string name = s.name;
        char* argv[] = {name.data(), nullptr};
        s.run(1, argv);
    }
    collect_command_facts(nullptr);
    return facts;
}

// The options --help lists, one a line: "  -k [ --label ] L   help" or
// "  --results D (=results)   help".
std::set<std::string> listed_options(const std::string& help) {
    static const std::regex line(R"(^  (?:-\w \[ )?--([a-z0-9-]+)(?: \])?(?: |$).*)");
    std::set<std::string> out;
    std::istringstream in(help);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_match(l, m, line)) out.insert(m[1].str());
    }
    return out;
}

// Parses words with cl (argv[0] is the command's name).
bool parse(CommandLine& cl, std::vector<std::string> words, po::variables_map& vm) {
    words.insert(words.begin(), cl.name);
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    return parse_command_line(cl, static_cast<int>(argv.size()), argv.data(), vm);
}

}  // namespace

TEST_CASE("every command's --help lists the rows of its table, and only those, as the manual does",
          "[cli][e2e]") {
    test::ScratchDir dir("command-tables");
    const std::vector<CommandFacts> commands = every_commands_rows();
    REQUIRE(commands.size() == subcommands().size());
    const auto man = test::run_contest_binary({"help", "man"}, dir.path(), dir.path());
    REQUIRE(man.exit_code == 0);
    std::size_t rows = 0;
    for (const CommandFacts& c : commands) {
        INFO("contest " << c.name);
        std::set<std::string> table;
        for (const OptionFacts& o : c.options) CHECK(table.insert(o.long_name).second);
        // Every command has --help, from the rows parse_command_line adds.
        CHECK(table.count("help") == 1);
        rows += table.size();
        const auto help = test::run_contest_binary({c.name, "--help"}, dir.path(), dir.path());
        INFO(help.err);
        REQUIRE(help.exit_code == 0);
        CHECK(listed_options(help.out) == table);
        for (const OptionFacts& o : c.options) {
            std::string in_roff = "\\fB\\-\\-";
            for (char ch : o.long_name)
                in_roff += ch == '-' ? std::string("\\-") : std::string(1, ch);
            CHECK_THAT(man.out, Catch::Contains(in_roff + "\\fR"));
        }
    }
    CHECK(rows > 150);
}

TEST_CASE(
    "a row's needs: the parse takes a row without them (a batch's words lack what the batch "
    "adds), the command's check refuses it, from a config file too",
    "[cli]") {
    std::string a, b;
    CommandLine cl;
    cl.name = "test";
    cl.accepts_config = true;
    add_options(cl, {{"a", OptionScope::host, po::value(&a), "the first"},
                     {"b", OptionScope::host, Needs{{"a"}}, po::value(&b), "the second"}});
    po::variables_map alone;
    REQUIRE(parse(cl, {"--b=1"}, alone));
    CHECK_THROWS_WITH(refuse_options_without_needs(cl.table, alone), "--b needs --a");
    po::variables_map both;
    REQUIRE(parse(cl, {"--a=1", "--b=2"}, both));
    CHECK_NOTHROW(refuse_options_without_needs(cl.table, both));
    CHECK(b == "2");
    test::ScratchDir dir("needs-config");
    std::ofstream(dir / "c.conf") << "b = 3\n";
    po::variables_map from_file;
    REQUIRE(parse(cl, {"--config", (dir / "c.conf").string()}, from_file));
    CHECK_THROWS_WITH(refuse_options_without_needs(cl.table, from_file), "--b needs --a");
    // --help says what a row needs before its own help.
    CHECK(cl.table.back().description->description() == "--a: the second");
}

TEST_CASE("as_prefixed_option names a check's option as the prefixed command offers it", "[cli]") {
    const auto refusal = [](const std::string& prefix, const std::string& what) -> std::string {
        try {
            as_prefixed_option(prefix, [&] { throw UsageError(what); });
        } catch (const UsageError& e) {
            return e.what();
        }
        return "nothing thrown";
    };
    CHECK(refusal("latency-", "--method 'x': must be one of clock_ns|posix_ns") ==
          "--latency-method 'x': must be one of clock_ns|posix_ns");
    // The prefix's own options are named as they are.
    CHECK(refusal("latency-", "--latency 'a,a': a twice") == "--latency 'a,a': a twice");
    CHECK(refusal("latency-", "--latency-dist 3: must be") == "--latency-dist 3: must be");
    // No option named, or no prefix: the refusal as it is.
    CHECK(refusal("latency-", "no probe runs here") == "no probe runs here");
    CHECK(refusal("", "--method 'x'") == "--method 'x'");
    CHECK_NOTHROW(as_prefixed_option("latency-", [] {}));
    CHECK_THROWS_AS(as_prefixed_option("latency-", [] { throw EnvironmentError("--x"); }),
                    EnvironmentError);
}
