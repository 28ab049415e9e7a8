// Each place's own options are its rows, in its file beside its backend
// (places.h: PlaceInfo::options): `contest run` gathers them from the place
// table and names no place itself, so --help, the manual and the completion
// list every place's options where the table puts them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/cli/run_options.h"
#include "contest/run/plan/places.h"
#include "test_helpers.h"

using namespace contest;

namespace {

std::string output_of(const test::ScratchDir& dir, const std::vector<std::string>& args) {
    const auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    return o.out;
}

// "--vm-cpus" as roff writes it in the manual: "\-\-vm\-cpus".
std::string in_roff(const std::string& text) {
    std::string out;
    for (char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

}  // namespace

TEST_CASE(
    "every place's own options are its rows of the place table, its option first, and contest "
    "run's --help, manual and completion list them in the table's order, as before they moved",
    "[contract][e2e][places]") {
    std::vector<std::string> rows;
    for (const PlaceInfo* place : place_table()) {
        INFO("the place of --" << place->option);
        REQUIRE(place->options);
        RunConfig config;
        const PlaceOptions options = place->options(config);
        CHECK(options.life);  // every place has its life, made with its options
        if (options.rows.empty()) {
            CHECK(place->option.empty());  // only the host has no option of its own
            continue;
        }
        // Its option first: LABEL=VALUE, once or more, saying what it does
        // not go with.
        const po::option_description& first = *options.rows.front().description;
        CHECK(first.long_name() == place->option);
        CHECK(first.format_parameter() == "LABEL=" + std::string(place->value_name));
        CHECK_THAT(first.description(), Catch::EndsWith(exclusions_help(*place)));
        for (const TableOption& row : options.rows) {
            rows.push_back(row.description->long_name());
            // A place's options are the host's: the contest a turn is
            // delegated to is given its config, not them.
            CHECK(row.scope == OptionScope::host);
        }
    }
    // The rows as cmd_run.cpp listed them by hand before they moved to
    // their places' files: the same options, in the same order.
    CHECK(rows == std::vector<std::string>{"kernel",
                                           "build-config",
                                           "build-cache-max",
                                           "vm-accel",
                                           "vm-cpus",
                                           "vm-memory",
                                           "vm-disk",
                                           "vm-boot-timeout",
                                           "vm-timeout",
                                           "vm-append",
                                           "duet",
                                           "runs-per-boot",
                                           "boot",
                                           "boot-append",
                                           "boot-method",
                                           "boot-max",
                                           "boot-on-failure",
                                           "boot-keep-built",
                                           "boot-root",
                                           "boot-status",
                                           "boot-abort",
                                           "boot-continue"});

    // contest run's table holds them once each, together, in that order.
    RunOptions run;
    std::vector<std::string> table;
    for (const TableOption& o : run.table()) table.push_back(o.description->long_name());
    CHECK(std::search(table.begin(), table.end(), rows.begin(), rows.end()) != table.end());
    for (const auto& row : rows) {
        INFO("--" << row);
        CHECK(std::count(table.begin(), table.end(), row) == 1);
    }

    // --help, the manual and the completion say them, in that order.
    test::ScratchDir dir("place-options");
    const std::string help = output_of(dir, {"run", "--help"});
    const std::string man = output_of(dir, {"help", "man"});
    const std::string completion = output_of(dir, {"help", "bash-completion"});
    const auto run_at = man.find(".SH \"CONTEST RUN\"");
    REQUIRE(run_at != std::string::npos);
    const std::string man_run = man.substr(run_at, man.find("\n.SH ", run_at + 1) - run_at);
    std::size_t in_help = 0, in_man = 0;
    for (const auto& row : rows) {
        INFO("--" << row);
        in_help = help.find("\n  --" + row + " ", in_help);
        CHECK(in_help != std::string::npos);
        in_man = man_run.find("\\fB" + in_roff("--" + row) + "\\fR", in_man);
        CHECK(in_man != std::string::npos);
        CHECK(std::regex_search(completion, std::regex("[ \"']--" + row + "[ \"']")));
    }
}
