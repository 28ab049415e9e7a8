// The probe table (contest/latency/probe_table.h) walked entry by entry: a
// probe left half-filled (no help, an option no command has, a note the
// report never prints) fails here, whatever the probe.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "contest/latency/probe_choice.h"
#include "contest/latency/probe_table.h"
#include "contest/report/report.h"
#include "report_fixtures.h"
#include "test_helpers.h"

using namespace contest;
using contest::latency::ProbeInfo;
using nlohmann::json;

namespace {

std::string command_help(const test::ScratchDir& dir, const std::vector<std::string>& args) {
    auto o = test::run_contest_binary(args, dir.path());
    INFO(o.err);
    REQUIRE(o.exit_code == 0);
    return o.out;
}

// The text report of one label whose no_load runs carried `probe` alone.
std::string report_of_probe(const ProbeInfo& probe) {
    ResultFile f = report_test::make_result("k", {{"no_load", {10, 10}}});
    const json record = {{"probe", probe.name},
                         {"missed_pct", 0.0},
                         {"latency",
                          {{"samples", 1},
                           {"min_ns", 5000},
                           {"max_ns", 5000},
                           {"periods", 1},
                           {"missed", 0},
                           {"histogram", {{"bins", {{5000, 1}}}}}}}};
    for (auto& run : f.runs) run.latency = {{std::string(probe.name), record}};
    ReportOptions o;
    o.format = "text";
    o.print_warnings = false;
    o.latency_only = true;
    return render_report({f}, o);
}

// The first probe of the table that is not `probe`, or nullptr.
const ProbeInfo* another_probe_than(const ProbeInfo& probe) {
    for (const ProbeInfo* p : latency::probe_table())
        if (p != &probe) return p;
    return nullptr;
}

}  // namespace

TEST_CASE("every probe of the table is whole: named, helped, configured", "[latency]") {
    REQUIRE(!latency::probe_table().empty());
    std::set<std::string_view> names, options;
    for (const ProbeInfo* p : latency::probe_table()) {
        INFO("probe " << p->name);
        CHECK(!p->name.empty());
        CHECK(names.insert(p->name).second);
        CHECK(p->help.size() > 20);
        REQUIRE(p->configure != nullptr);
        CHECK(latency::find_probe(p->name) == p);
        // Made from the default settings, its options are whole too.
        const latency::ProbeOptions made =
            latency::make_probe_options(*p, latency::ProbeSettings{});
        CHECK(made.name() == p->name);
        CHECK(made.period_ns > 0);
        if (p->record) CHECK(p->record(made).is_object());
        if (p->unsettled) CHECK(!p->unsettled(made).empty());
        for (const auto& o : p->options) {
            INFO("option " << o.name);
            CHECK(!o.help.empty());
            CHECK(options.insert(o.name).second);  // one probe's, not two
            CHECK(latency::own_option_help(o.name) ==
                  std::string(p->name) + ": " + std::string(o.help));
        }
    }
    CHECK(latency::probe_order(latency::probe_table().back()->name) + 1 ==
          latency::probe_table().size());
    CHECK(latency::probe_order("no-such-probe") == latency::probe_table().size());
}

TEST_CASE(
    "every probe's options are options of contest latency and contest run, refused "
    "for another probe",
    "[latency][e2e]") {
    test::ScratchDir dir("probe-table");
    const std::string latency_help = command_help(dir, {"latency", "--help"});
    const std::string run_help = command_help(dir, {"run", "--help"});
    CHECK_THAT(latency_help, Catch::Contains(latency::probe_names(" | ")));
    CHECK_THAT(run_help, Catch::Contains(latency::probe_names(",")));
    for (const ProbeInfo* p : latency::probe_table())
        for (const auto& o : p->options) {
            const std::string name(o.name);
            INFO("probe " << p->name << ", option " << name);
            CHECK_THAT(latency_help, Catch::Contains("--" + name + " "));
            CHECK_THAT(run_help, Catch::Contains("--latency-" + name + " "));
            const ProbeInfo* other = another_probe_than(*p);
            if (!other) continue;
            // 1000 is in every own option's range: the refusal is the probe's.
            auto given = test::run_contest_binary({"latency", "--probe", std::string(other->name),
                                                   "--" + name, "1000", "--duration", "1"},
                                                  dir.path());
            CHECK(given.exit_code == 2);
            CHECK_THAT(given.err, Catch::Contains("--" + name + " is the " + std::string(p->name) +
                                                  " probe's"));
        }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("a probe's note is in the report when that probe is reported, and only then",
          "[latency][report]") {
    for (const ProbeInfo* p : latency::probe_table()) {
        INFO("probe " << p->name);
        const std::string text = report_of_probe(*p);
        CHECK_THAT(text, Catch::Contains("Latency in us"));
        for (const ProbeInfo* q : latency::probe_table()) {
            if (q->footnote.empty()) continue;
            INFO("note of " << q->name);
            const std::string note = "\n" + std::string(q->name) + ": " + std::string(q->footnote);
            CHECK((text.find(note) != std::string::npos) == (q == p));
        }
    }
}

TEST_CASE("the manual page and the bash completion list the table's probes", "[latency][e2e]") {
    test::ScratchDir dir("probe-table-help");
    const std::string man = command_help(dir, {"help", "man"});
    REQUIRE_THAT(man, Catch::Contains(".SH PROBES\n"));
    const std::string probes = man.substr(man.find(".SH PROBES\n"));
    std::string all;
    for (const ProbeInfo* p : latency::probe_table()) {
        INFO("probe " << p->name);
        CHECK_THAT(probes, Catch::Contains(".B " + std::string(p->name) + "\n"));
        all += (all.empty() ? "" : " ") + std::string(p->name);
    }
    std::ofstream(dir / "contest.bash") << command_help(dir, {"help", "bash-completion"});
    auto complete = [&](const std::string& line) {
        return test::bash_completions(dir / "contest.bash", line);
    };
    CHECK(complete("contest latency --probe \"\"") == all);
    CHECK(complete("contest run --latency \"\"") == all);
}

TEST_CASE("docs/contract.md's --probe and --latency rows name every probe of the table",
          "[latency][contract]") {
    const std::string contract =
        test::slurp(std::filesystem::path(CONTEST_SOURCE_DIR) / "docs/contract.md");
    for (const std::string row : {"| `--probe P` |", "| `--latency [PROBES]` |"}) {
        const auto at = contract.find(row);
        INFO(row);
        REQUIRE(at != std::string::npos);
        const std::string line = contract.substr(at, contract.find('\n', at) - at);
        for (const ProbeInfo* p : latency::probe_table()) {
            INFO("probe " << p->name);
            CHECK_THAT(line, Catch::Contains("`" + std::string(p->name) + "`"));
        }
    }
}
