// Triage of the history's changes (docs/history.md, "Triage"): ids a later
// look finds again, states people set, alerts over measures, loads and
// hosts, the lab's hosts, the page that opens on the changes, and KCIDB's
// issues and incidents. The same checks on PostgreSQL are in
// test_history_postgresql.cpp (triage_support.h).
#include <nlohmann/json.hpp>
#include <regex>

#include "contest/history/hosts.h"
#include "contest/sys/text.h"
#include "triage_support.h"

using namespace contest;
using namespace contest::history;
using namespace contest::test;
namespace fs = std::filesystem;

TEST_CASE("triage: a change marked invalid is found again by a later look, under its id",
          "[history][triage]") {
    ScratchDir dir("triage-round-trip");
    check_triage_round_trip(db_target((dir / "h.sqlite").string(), dir.path()), dir.path());
}

TEST_CASE("triage: the place's tolerance, alerts by kernel pair, a regression back, one mail",
          "[history][triage]") {
    ScratchDir dir("triage-groups");
    check_triage_identity_and_groups(db_target((dir / "h.sqlite").string(), dir.path()),
                                     dir.path());
}

TEST_CASE("triage: state names, change ids and bug URLs", "[history][triage]") {
    for (const char* name : {"untriaged", "acknowledged", "investigating", "invalid", "improvement",
                             "fixed", "wontfix", "downstream"}) {
        const auto s = parse_triage_status(name);
        REQUIRE(s);
        CHECK(std::string(triage_status_name(*s)) == name);
    }
    CHECK_FALSE(parse_triage_status("reassigned"));
    CHECK_FALSE(parse_triage_status("Invalid"));
    CHECK(robot_leaves(TriageStatus::invalid));
    CHECK(robot_leaves(TriageStatus::acknowledged));
    CHECK(robot_leaves(TriageStatus::wontfix));
    CHECK(robot_leaves(TriageStatus::downstream));
    CHECK_FALSE(robot_leaves(TriageStatus::untriaged));
    CHECK_FALSE(robot_leaves(TriageStatus::investigating));
    CHECK(parse_change_id("7") == 7);
    CHECK(parse_change_id("#12") == 12);
    CHECK_FALSE(parse_change_id("0"));
    CHECK_FALSE(parse_change_id("7a"));
    CHECK_FALSE(parse_change_id("-3"));
    CHECK(bug_url_ok("https://bugzilla.kernel.org/show_bug.cgi?id=207065"));
    CHECK(bug_url_ok("http://lore.kernel.org/all/123@x/"));
    CHECK_FALSE(bug_url_ok("bug 123"));
    CHECK_FALSE(bug_url_ok("ftp://x/y"));
    CHECK_FALSE(bug_url_ok("https://x/a b"));
    CHECK_FALSE(bug_url_ok("javascript:alert(1)"));
}

namespace {

// The id `changes` printed for a series' change: "  #ID [STATE] SERIES: ...".
long long printed_id(const std::string& out, const std::string& series, std::string* state) {
    const std::regex line("  #([0-9]+) \\[([a-z]+)\\] " + series + ": ");
    std::smatch m;
    if (!std::regex_search(out, m, line)) return 0;
    if (state) *state = m[2];
    return std::stoll(m[1]);
}

}  // namespace

TEST_CASE("history triage and changes: ids, states, alerts, --status, one-line refusals",
          "[history][triage][e2e]") {
    ScratchDir dir("triage-cli");
    for (int i = 1; i <= 8; ++i) put_stepped_kernel(dir / "results", i);
    Outcome o = run_contest_binary({"history", "import", "results"}, dir.path(), dir.path());
    REQUIRE(o.exit_code == 0);
    o = run_contest_binary({"history", "changes", "--measure", "wall_s"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    // Every load's Time moved at the same kernel pair: one alert of five.
    CHECK_THAT(o.out, Catch::StartsWith("alert 1, untriaged: 6.1.4 to 6.1.5, 5 changes (1 "
                                        "measure, 5 loads, 1 host)\n"));
    CHECK_THAT(o.out, Catch::Contains("5 of 5 change(s) in 1 alert(s)"));
    std::string state;
    const long long id = printed_id(o.out, "m1/w1/io_load/wall_s", &state);
    REQUIRE(id > 0);
    CHECK(state == "untriaged");

    o = run_contest_binary(
        {"history", "triage", std::to_string(id), "--status", "invalid", "--note", "RAID rebuild",
         "--bug", "https://bugs.example.org/7", "--by", "ann@lab"},
        dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains(": invalid (by ann@lab, "));

    // A later look with one more point: the same id, its state.
    put_stepped_kernel(dir / "results", 9);
    REQUIRE(
        run_contest_binary({"history", "import", "results"}, dir.path(), dir.path()).exit_code ==
        0);
    o = run_contest_binary({"history", "changes", "--measure", "wall_s"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    CHECK(printed_id(o.out, "m1/w1/io_load/wall_s", &state) == id);
    CHECK(state == "invalid");
    CHECK_THAT(o.out, Catch::Contains("    invalid by ann@lab ") &&
                          Catch::Contains(" https://bugs.example.org/7: RAID rebuild\n"));
    // Four untriaged and one invalid: the alert is untriaged still.
    CHECK_THAT(o.out, Catch::StartsWith("alert 1, untriaged:"));
    o = run_contest_binary({"history", "changes", "--measure", "wall_s", "--status", "invalid"},
                           dir.path(), dir.path());
    CHECK(printed_id(o.out, "m1/w1/io_load/wall_s", nullptr) == id);
    CHECK_THAT(o.out, Catch::Contains("1 of 5 change(s) in 1 alert(s), those invalid"));
    o = run_contest_binary({"history", "changes", "--measure", "wall_s", "--status", "untriaged"},
                           dir.path(), dir.path());
    CHECK(printed_id(o.out, "m1/w1/io_load/wall_s", nullptr) == 0);
    CHECK_THAT(o.out, Catch::Contains("4 of 5 change(s)"));
    // Without --status: the change and every setting of its state.
    o = run_contest_binary({"history", "triage", "#" + std::to_string(id)}, dir.path(), dir.path());
    INFO(o.out << o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::Contains(" untriaged by ") && Catch::Contains(" invalid by ann@lab "));

    // Bad input: one line naming it, exit 2, nothing recorded.
    const auto refused = [&](std::vector<std::string> args, const std::string& says) {
        const Outcome r = run_contest_binary(args, dir.path(), dir.path());
        INFO(r.out << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(says));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    };
    refused({"history", "triage", std::to_string(id), "--status", "reassigned"},
            "--status 'reassigned': expected one of untriaged, acknowledged");
    refused({"history", "triage", "999", "--status", "invalid"}, "no change 999 in ");
    refused({"history", "triage", "x7", "--status", "invalid"}, "'x7' is not a change's id");
    refused({"history", "triage", std::to_string(id), "--status", "fixed", "--bug", "bug 12"},
            "--bug 'bug 12' is not a URL");
    refused({"history", "triage", std::to_string(id), "--status", "downstream"},
            "downstream of which change? (--of CHANGE)");
    refused({"history", "changes", "--status", "closed"}, "--status 'closed': expected one of");
    HistoryDb db(db_target("", dir / "results"), OpenFor::reading);
    CHECK(triage_history(db, id).size() == 2);
}

TEST_CASE("history hosts: per host its last run, what it runs and its failures",
          "[history][triage][e2e]") {
    ScratchDir dir("triage-hosts");
    for (const char* host : {"lab-a", "lab-b"})
        for (int i = 1; i <= 2; ++i) {
            const fs::path path = dir / "results" / host / std::to_string(i) / "r.json";
            put_example_as(path, std::string(host) + "-k" + std::to_string(i),
                           "6.1." + std::to_string(i));
            nlohmann::json j = nlohmann::json::parse(slurp(path));
            j["system"]["hostname"] = host;
            j["started_at"] = std::string("2026-12-0") + (host[4] == 'a' ? "5" : "1") + "T0" +
                              std::to_string(i) + ":00:00Z";
            if (host[4] == 'b' && i == 2) {
                j["runs"][0]["status"] = "workload_failed";
                j["runs"][0]["reason"] = "the workload exited 1";
            }
            put_file(path, j.dump(1));
        }
    REQUIRE(
        run_contest_binary({"history", "import", "results"}, dir.path(), dir.path()).exit_code ==
        0);
    const Outcome o = run_contest_binary({"history", "hosts"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    const auto lines = split_lines(o.out);
    REQUIRE(lines.size() >= 6);
    CHECK_THAT(lines[0], Catch::Contains("failed"));
    // What this machine owes the database is its own list's (owed_saves.h).
    CHECK_THAT(o.out, Catch::Contains("this machine's results owes nothing to "));
    // The host whose last run is oldest first: the one that stopped.
    CHECK_THAT(lines[1], Catch::StartsWith("2026-12-01T02:00:00Z ") && Catch::Contains(" lab-b ("));
    CHECK_THAT(lines[2], Catch::Contains("6.1.2 (lab-b-k2)") &&
                             Catch::Contains("labels lab-b-k1, lab-b-k2;"));
    CHECK(lines[3] == "    its last failed run: the workload exited 1");
    CHECK_THAT(lines[4], Catch::StartsWith("2026-12-05T02:00:00Z ") && Catch::Contains(" lab-a ("));
    HistoryDb db(db_target("", dir / "results"), OpenFor::reading);
    const auto hosts = host_views(db);
    REQUIRE(hosts.size() == 2);
    CHECK(hosts[0].failed_runs == 1);
    CHECK(hosts[1].failed_runs == 0);
    CHECK(hosts[0].files == 2);
    CHECK(hosts[0].ok_runs + hosts[0].failed_runs == 50);
}

TEST_CASE("history page opens on the changes and their states, and KCIDB gets them as issues",
          "[history][triage][e2e]") {
    ScratchDir dir("triage-page");
    for (int i = 1; i <= 8; ++i) put_stepped_kernel(dir / "results", i);
    REQUIRE(
        run_contest_binary({"history", "import", "results"}, dir.path(), dir.path()).exit_code ==
        0);
    Outcome o = run_contest_binary({"history", "page", "--out", "p.html"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    std::string html = slurp(dir / "p.html");
    const auto changes = html.find("<section id=\"changes\">");
    const auto first_chart = html.find("<figure");
    REQUIRE(changes != std::string::npos);
    CHECK(changes < first_chart);
    CHECK_THAT(html, Catch::Contains("data-state=\"untriaged\""));
    // Time first, open; every other measure folded.
    const auto folded = html.find("<details class=\"measure\"");
    REQUIRE(folded != std::string::npos);
    CHECK(html.find("data-series=\"m1/w1/io_load/wall_s\"") < folded);
    CHECK(html.find("data-series=\"m1/w1/io_load/cpu_pct\"") > folded);

    const std::vector<RecordedChange> recorded = [&] {
        HistoryDb db(db_target("", dir / "results"), OpenFor::reading);
        return recorded_changes(db);
    }();
    REQUIRE(!recorded.empty());
    const long long id = recorded.front().id;
    REQUIRE(run_contest_binary({"history", "triage", std::to_string(id), "--status", "invalid",
                                "--bug", "https://bugs.example.org/9"},
                               dir.path(), dir.path())
                .exit_code == 0);
    o = run_contest_binary({"history", "page", "--out", "p.html"}, dir.path(), dir.path());
    html = slurp(dir / "p.html");
    CHECK_THAT(
        html, Catch::Contains("data-change=\"" + std::to_string(id) + "\" data-state=\"invalid\""));

    // KCIDB: an alert an issue, each change an incident of it; every
    // change marked invalid, every issue's culprit none (KCIDB's invalid).
    {
        HistoryDb db(db_target("", dir / "results"), OpenFor::writing);
        for (const auto& c : recorded)
            if (c.id != id) {
                TriageRequest r;
                r.change = c.id;
                r.status = TriageStatus::invalid;
                r.by = "ann@lab";
                triage_change(db, r, "2026-12-05T05:00:00Z");
            }
    }
    o = run_contest_binary({"export", "--changes", "--origin", "lab"}, dir.path(), dir.path());
    INFO(o.out << o.err);
    REQUIRE(o.exit_code == 0);
    const auto j = nlohmann::json::parse(o.out);
    CHECK(j["version"]["major"] == 4);
    REQUIRE(j["issues"].is_array());
    REQUIRE(!j["issues"].empty());
    std::size_t incidents_of_invalid = 0;
    bool found_bug = false;
    for (const auto& issue : j["issues"]) {
        CHECK_THAT(issue["id"].get<std::string>(), Catch::StartsWith("lab:"));
        CHECK(issue["version"].get<int>() >= 1);
        for (const auto& inc : j["incidents"])
            if (inc["issue_id"] == issue["id"]) {
                CHECK(inc["issue_version"] == issue["version"]);
                CHECK(inc["present"] == true);
                if (inc["misc"]["change"] == id) ++incidents_of_invalid;
            }
        if (issue.contains("report_url") && issue["report_url"] == "https://bugs.example.org/9")
            found_bug = true;
        CHECK_FALSE(issue.contains("build_valid"));  // v5 drops it
        CHECK(issue["culprit"]["code"] == false);
        CHECK(issue["culprit"]["tool"] == false);
        CHECK(issue["culprit"]["harness"] == false);
        CHECK_THAT(issue["comment"].get<std::string>(), Catch::StartsWith("invalid: "));
    }
    CHECK(incidents_of_invalid == 1);
    CHECK(found_bug);
    const Outcome bad = run_contest_binary({"export", "--changes", "--origin", "lab", "k1"},
                                           dir.path(), dir.path());
    CHECK(bad.exit_code == 2);
}
