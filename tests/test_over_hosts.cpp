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
#include "contest/run/record/result_writer.h"
#include "contest/sys/errors.h"
#include "report_fixtures.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::report_test;

namespace {

// One host's pair: base ~10 s, new `effect` times it, noise sd 0.3% of it
// shared by the round's pair as the machine's drift would be.
void add_host(std::vector<ResultFile>& base, std::vector<ResultFile>& fresh,
              const std::string& host, double effect, unsigned seed, int rounds = 6) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> drift(0, 0.05), noise(0, 0.03);
    std::vector<double> b, n;
    for (int round = 1; round <= rounds; ++round) {
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
    const std::string text = format_over_hosts(o, "text");
    CHECK_THAT(text, Catch::Contains("box4"));
    CHECK_THAT(text, Catch::Contains("2 of 3 hosts slower, 2 beyond noise"));
    const auto j = nlohmann::json::parse(format_over_hosts(o, "json"));
    CHECK(j["loads"][0]["combined"]["hosts_agreeing"] == 2);
    CHECK(j["loads"][0]["hosts"].size() == 3);
    const std::string page = format_over_hosts(o, "html");
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

TEST_CASE("compare --over-hosts: a 2-round host whose differences agree does not outweigh the rest",
          "[compare]") {
    // Three hosts of 6 rounds and one of 2, none changed; the 2-round
    // host's two differences happen to agree to 0.001%: its own standard
    // error is near 0 and, taken as known, gives it nearly all the weight.
    std::vector<ResultFile> base, fresh;
    const std::vector<std::vector<double>> differences = {
        {0.002, -0.002, 0.001, -0.001, 0.003, -0.003},
        {-0.002, 0.002, 0.002, -0.002, 0.001, -0.001},
        {0.003, -0.001, -0.002, 0.001, -0.003, 0.002},
        {0.00001, 0.00002}};
    for (std::size_t h = 0; h < differences.size(); ++h) {
        std::vector<double> b, n;
        for (std::size_t r = 0; r < differences[h].size(); ++r) {
            b.push_back(10 + 0.1 * static_cast<double>(r));
            n.push_back(b.back() * std::exp(differences[h][r]));
        }
        for (auto* side : {&base, &fresh}) {
            ResultFile f =
                make_result(side == &base ? "base" : "new", {{"no_load", side == &base ? b : n}});
            for (auto& r : f.runs) r.round = r.index;
            f.system["hostname"] = "box" + std::to_string(h + 1);
            f.config["vary"] = {{"group", "fleet-" + std::to_string(h)}};
            side->push_back(f);
        }
    }
    const OverHosts o = compare_over_hosts(base, fresh, ModelOptions{});
    const LoadOverHosts& l = o.loads.front();
    REQUIRE(l.hosts.size() == 4);
    REQUIRE(l.tau_pct);
    INFO(format_over_hosts(o, "text"));
    // Each host's share of the combined estimate's weight.
    const double tau = *l.tau_pct / 100;
    double total = 0;
    std::vector<double> weight;
    for (const auto& e : l.hosts) {
        weight.push_back(1 / (e.log_se * e.log_se + tau * tau));
        total += weight.back();
    }
    CHECK(l.hosts[3].pairs == 2);
    CHECK(weight[3] / total < 0.25);  // about 2 rounds of the fleet's 20
    CHECK(weight[0] / total > 0.15);
}

TEST_CASE("compare --over-hosts: the interval at the level of --alpha, tau from few hosts caveated",
          "[compare]") {
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "box1", 1.05, 1);
    add_host(base, fresh, "box2", 1.04, 2);
    add_host(base, fresh, "box3", 1.00, 3);
    ModelOptions options;
    options.alpha = 0.01;
    const OverHosts o = compare_over_hosts(base, fresh, options);
    const std::string text = format_over_hosts(o, "text");
    CHECK_THAT(text, Catch::Contains("(99% CI "));
    CHECK_THAT(text, !Catch::Contains("95%"));
    CHECK_THAT(text, Catch::Contains("% (from 3 hosts only: a rough figure); "));
    CHECK_THAT(text, Catch::Contains("alpha 0.01, Holm over 2 loads"));
    // The wider interval of 99% than of 95%.
    const OverHosts at95 = compare_over_hosts(base, fresh, ModelOptions{});
    CHECK(*o.loads[0].ci_high_pct - *o.loads[0].ci_low_pct >
          *at95.loads[0].ci_high_pct - *at95.loads[0].ci_low_pct);
    const auto j = nlohmann::json::parse(format_over_hosts(o, "json"));
    CHECK(j["ci_level"] == Approx(0.99));
    CHECK(j["loads"][0]["combined"]["tau_rough"] == true);
    CHECK(j["loads"][0]["combined"]["p_adjusted"].get<double>() >=
          j["loads"][0]["combined"]["p"].get<double>());
}

TEST_CASE("compare --over-hosts: hosts told apart by machine, clones refused, files with no host",
          "[compare]") {
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "box", 1.05, 1);
    add_host(base, fresh, "box", 1.00, 2);
    // Two machines of one name, each with its own machine key: two hosts.
    for (auto* side : {&base, &fresh}) {
        (*side)[0].system["machine_key"] = "aaaaaaaaaaaaaaaa";
        (*side)[1].system["machine_key"] = "bbbbbbbbbbbbbbbb";
    }
    const OverHosts o = compare_over_hosts(base, fresh, ModelOptions{});
    CHECK(o.hosts == std::vector<std::string>{"box (machine aaaaaaaa)", "box (machine bbbbbbbb)"});
    REQUIRE(o.loads.front().hosts.size() == 2);
    // Cloned: the same name and machine id, other hardware: refused, named.
    auto clones = base;
    clones[1].system["machine_key"] = "aaaaaaaaaaaaaaaa";
    clones[1].system["cpu_model"] = "Another CPU";
    clones[1].path = "results/base/box-2.json";
    auto refused = [&](const std::vector<ResultFile>& b, const std::vector<ResultFile>& n) {
        try {
            compare_over_hosts(b, n, ModelOptions{});
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string("not refused");
    };
    CHECK_THAT(refused(clones, fresh),
               Catch::Contains("host box (machine aaaaaaaa): base's files ") &&
                   Catch::Contains("ran on different machines") && Catch::Contains("box-2.json"));
    // The same hardware, run at the same time: two machines too.
    clones = base;
    clones[1].system["machine_key"] = "aaaaaaaaaaaaaaaa";
    clones[0].started_at = "2026-12-01T10:00:00Z";
    clones[0].finished_at = "2026-12-01T11:00:00Z";
    clones[1].started_at = "2026-12-01T10:30:00Z";
    clones[1].finished_at = "2026-12-01T11:30:00Z";
    CHECK_THAT(refused(clones, fresh), Catch::Contains("ran at the same time"));
    // A file that names neither its host nor its machine.
    auto nameless = base;
    nameless[0].system.erase("hostname");
    nameless[0].system.erase("machine_key");
    nameless[0].path = "results/base/x.json";
    CHECK_THAT(refused(nameless, fresh), Catch::Contains("x.json records neither"));
}

TEST_CASE("compare --over-hosts: a --kernel file's host is the machine that ran the guests",
          "[compare]") {
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "guest", 1.05, 1);
    add_host(base, fresh, "guest", 1.00, 2);
    int n = 0;
    for (auto* side : {&base, &fresh})
        for (std::size_t i = 0; i < side->size(); ++i) {
            // Each boot of a guest has a machine id of its own.
            (*side)[i].system["machine_key"] = std::to_string(++n);
            (*side)[i].config["vm"] = {{"host_system", {{"hostname", "host" + std::to_string(i)}}}};
        }
    const OverHosts o = compare_over_hosts(base, fresh, ModelOptions{});
    CHECK(o.hosts == std::vector<std::string>{"host0", "host1"});
}

TEST_CASE("compare --over-hosts: a label's kernel differing between hosts is refused or said",
          "[compare]") {
    std::vector<ResultFile> base, fresh;
    add_host(base, fresh, "box1", 1.05, 1);
    add_host(base, fresh, "box2", 1.00, 2);
    add_host(base, fresh, "box3", 1.00, 3);
    // new's .config differs on box3: said, with the hosts of each.
    for (std::size_t i = 0; i < fresh.size(); ++i)
        fresh[i].system["kernel"] = {
            {"config", {{"sha256", i == 2 ? "bbbbbbbbbbbbbbbb" : "aaaaaaaaaaaaaaaa"}}}};
    const OverHosts o = compare_over_hosts(base, fresh, ModelOptions{});
    REQUIRE(o.warnings.size() == 1);
    CHECK(o.warnings[0] ==
          "new: its kernel's .config (SHA-256) differs between hosts: aaaaaaaaaaaa on box1, box2; "
          "bbbbbbbbbbbb on box3; the hosts' effects are combined as they are");
    CHECK_THAT(format_over_hosts(o, "text"), Catch::Contains("warning: new: its kernel's .config"));
    // Built from another commit on box2: refused, naming the label and hosts.
    for (std::size_t i = 0; i < fresh.size(); ++i)
        fresh[i].config["kernel"] = {{"build", {{"commit", i == 1 ? "2222" : "1111"}}}};
    try {
        compare_over_hosts(base, fresh, ModelOptions{});
        FAIL("not refused");
    } catch (const UsageError& e) {
        CHECK(std::string(e.what()) ==
              "contest compare --over-hosts: new: the commit its kernel was built from differs "
              "between hosts: 1111 on box1, box3; 2222 on box2; the hosts measured different "
              "kernels under one label");
    }
}
