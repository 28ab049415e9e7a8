// `contest compare --over-hosts`: a fleet's comparison. Result files made
// in memory for three hosts, each a paired run of base and new (one group,
// rounds 1..6) with a known effect of its own: two hosts slower by 5% and 4%,
// one unchanged. What is checked: each host judged on its own, the
// combined effect between the hosts' with its spread, the hosts that agree
// counted; a host that ran one label only left out and named; the random
// effects against figures worked by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "contest/analysis/over_hosts.h"
#include "contest/report/format_over_hosts.h"
#include "contest/run/result_writer.h"
#include "contest/sys/errors.h"
#include "report_fixtures.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::report_test;

namespace {

// One host's pair: base ~10 s, new `effect` times it, noise sd 0.3% of it
// shared by the round's pair as the machine's drift would be.
void add_host(std::vector<ResultFile>& base, std::vector<ResultFile>& fresh,
              const std::string& host, double effect, unsigned seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> drift(0, 0.05), noise(0, 0.03);
    std::vector<double> b, n;
    for (int round = 1; round <= 6; ++round) {
        const double d = drift(gen);
        b.push_back(10 + d + noise(gen));
        n.push_back(10 * effect + d + noise(gen));
    }
    for (auto* side : {&base, &fresh}) {
        ResultFile f =
            make_result(side == &base ? "base" : "new",
                        {{"no_load", side == &base ? b : n}, {"cpu_load", side == &base ? b : n}});
        for (std::size_t i = 0; i < f.runs.size(); ++i) f.runs[i].round = f.runs[i].index;
        f.system["hostname"] = host;
        f.config["vary"] = {{"group", "fleet-" + host}};
        side->push_back(f);
    }
}

}  // namespace

TEST_CASE("random effects over two hosts: the figures worked by hand", "[compare]") {
    const auto r = random_effects({0.1, 0.2}, {0.05, 0.05});
    REQUIRE(r);
    CHECK(r->estimate == Approx(0.15));
    CHECK(r->tau == Approx(0.05));
    CHECK(r->df == 1);
    // Hartung-Knapp's se 0.05 on 1 df: t 3, the interval +-12.706 x 0.05.
    CHECK(r->ci_high - r->estimate == Approx(12.7062 * 0.05).epsilon(1e-3));
    CHECK(r->p == Approx(0.2048).epsilon(1e-2));
    CHECK_FALSE(random_effects({0.1}, {0.05}));
}

TEST_CASE(
    "compare --over-hosts judges each host on its own and combines them, counting who "
    "agrees",
    "[compare]") {
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "box1", 1.05, 1);
    add_host(base, fresh, "box2", 1.04, 2);
    add_host(base, fresh, "box3", 1.00, 3);
    // A host that ran base only.
    std::vector<ResultFile> more_base = base, ignored;
    add_host(more_base, ignored, "box4", 1.0, 4);
    ModelOptions options;
    const OverHosts o = compare_over_hosts(more_base, fresh, options);
    CHECK(o.hosts == std::vector<std::string>{"box1", "box2", "box3"});
    CHECK(o.only_one_side == std::vector<std::string>{"box4"});
    // Each load of the pair: no_load and cpu_load (the same times here).
    REQUIRE(o.loads.size() == 2);
    const LoadOverHosts& l = o.loads.back();
    CHECK(l.load == "cpu_load");
    REQUIRE(l.hosts.size() == 3);
    CHECK(l.hosts[0].significant);
    CHECK(l.hosts[0].change_pct == Approx(5).margin(0.5));
    CHECK(l.hosts[1].significant);
    CHECK_FALSE(l.hosts[2].significant);
    CHECK(l.hosts[0].pairs == 6);
    REQUIRE(l.change_pct);
    // Between the hosts' effects, and their spread large beside each host's noise.
    CHECK(*l.change_pct > 1);
    CHECK(*l.change_pct < 5);
    CHECK(*l.tau_pct > 1);
    CHECK(*l.ci_low_pct < 0);  // three hosts that differ this much cannot tell
    CHECK(l.agree == 2);
    CHECK(l.agree_beyond == 2);
    const std::string text = format_over_hosts(o, "text", 0.05);
    CHECK_THAT(text, Catch::Contains("box4"));
    CHECK_THAT(text, Catch::Contains("2 of 3 hosts slower, 2 beyond noise"));
    const auto j = nlohmann::json::parse(format_over_hosts(o, "json", 0.05));
    CHECK(j["loads"][0]["combined"]["hosts_agreeing"] == 2);
    CHECK(j["loads"][0]["hosts"].size() == 3);
    const std::string page = format_over_hosts(o, "html", 0.05);
    CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
    CHECK_THAT(page, Catch::Contains("<td>box1</td><td>+"));
    CHECK_THAT(page, Catch::Contains("2 of 3 hosts slower, 2 beyond noise"));
    // No host ran both: refused.
    CHECK_THROWS_AS(compare_over_hosts(base, {more_base.back()}, options), UsageError);
}

TEST_CASE("post --over-hosts: a fleet's verdicts as a mail, a host's name escaped in HTML",
          "[compare][e2e]") {
    test::ScratchDir dir("over-hosts");
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "box1", 1.05, 1);
    add_host(base, fresh, "<b>box2</b>", 1.04, 2);
    int n = 0;
    for (const auto* side : {&base, &fresh})
        for (const auto& f : *side)
            ResultWriter(dir / "results" / f.label / ("h" + std::to_string(++n) + ".json")).save(f);
    const auto o = test::run_contest_binary(
        {"post", "--over-hosts", "--results", (dir / "results").string(), "base", "new"},
        dir.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out, Catch::StartsWith("Subject: [contest] new against base over 2 hosts\n"));
    CHECK_THAT(o.out, Catch::Contains("over 2 hosts: +"));
    check_mail_lines(o.out);
    const auto page =
        test::run_contest_binary({"compare", "--over-hosts", "--format", "html", "--results",
                                  (dir / "results").string(), "base", "new"},
                                 dir.path());
    CHECK(page.exit_code == 0);
    CHECK_THAT(page.out, Catch::Contains("&lt;b&gt;box2&lt;/b&gt;"));
    CHECK(page.out.find("<b>box2") == std::string::npos);
    const auto bad =
        test::run_contest_binary({"compare", "--over-hosts", "--format", "csv", "--results",
                                  (dir / "results").string(), "base", "new"},
                                 dir.path());
    CHECK(bad.exit_code == 2);
}
