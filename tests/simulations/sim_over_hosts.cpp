// A fleet with no true difference (compare --over-hosts): how often the
// combined verdicts call some load different. Fleets of 2 to 6 hosts, each
// host 2 to 6 paired rounds with a noise of its own, 6 loads: the combined
// lines are corrected over the loads as each host's verdicts are over its
// own, and a host of 2 rounds whose differences happen to agree is not
// taken as known, so the chance of any false line stays at alpha.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/analysis/over_hosts.h"
#include "report_fixtures.h"

using namespace contest;
using namespace contest::report_test;

namespace {

const std::vector<std::string> kLoads = {"no_load", "process_load", "cpu_load",
                                         "io_load", "read_load",    "mem_load"};

// One host's pair of files, base and new of one --vary run: `rounds`
// rounds, each load's times the same but for noise of sd `noise` (log
// scale), a drift shared by the round's pair.
void add_null_host(std::vector<ResultFile>& base, std::vector<ResultFile>& fresh,
                   const std::string& host, int rounds, double noise, std::mt19937& gen) {
    std::normal_distribution<double> drift(0, 0.02), e(0, noise);
    std::map<std::string, std::vector<double>> b, n;
    for (int r = 0; r < rounds; ++r) {
        const double d = drift(gen);
        for (std::size_t l = 0; l < kLoads.size(); ++l) {
            const double mean = 10 * (1 + 0.2 * static_cast<double>(l));
            b[kLoads[l]].push_back(mean * std::exp(d + e(gen)));
            n[kLoads[l]].push_back(mean * std::exp(d + e(gen)));
        }
    }
    for (auto* side : {&base, &fresh}) {
        ResultFile f = make_result(side == &base ? "base" : "new", side == &base ? b : n);
        for (auto& run : f.runs) run.round = run.index;
        f.system["hostname"] = host;
        f.config["vary"] = {{"group", "fleet-" + host}};
        side->push_back(f);
    }
}

}  // namespace

TEST_CASE("null fleets: the combined lines call some load different at most alpha of the time",
          "[compare][stats]") {
    std::mt19937 gen(20261205);
    const int hosts_choice[] = {2, 3, 4, 6}, rounds_choice[] = {2, 3, 4, 6};
    const double noise_choice[] = {0.005, 0.01, 0.03};
    const int trials = 1500;
    int any_line = 0, any_raw = 0, lines = 0, raw = 0, combined = 0;
    for (int trial = 0; trial < trials; ++trial) {
        std::vector<ResultFile> base, fresh;
        const int hosts = hosts_choice[gen() % 4];
        for (int h = 0; h < hosts; ++h)
            add_null_host(base, fresh, "box" + std::to_string(h), rounds_choice[gen() % 4],
                          noise_choice[gen() % 3], gen);
        ModelOptions options;
        options.min_effect_pct = 0;  // the correction alone
        const OverHosts o = compare_over_hosts(base, fresh, options);
        bool line = false, line_raw = false;
        for (const auto& l : o.loads) {
            if (!l.p) continue;
            ++combined;
            lines += l.significant;
            raw += *l.p < options.alpha;
            line = line || l.significant;
            line_raw = line_raw || *l.p < options.alpha;
        }
        any_line += line;
        any_raw += line_raw;
    }
    const double rate = double(any_line) / trials, rate_raw = double(any_raw) / trials;
    WARN("null fleets with a false line over the hosts: "
         << rate * 100 << "% (corrected over " << kLoads.size() << " loads), " << rate_raw * 100
         << "% uncorrected; "
         << "per load: " << 100.0 * raw / combined << "% raw");
    // 1500 fleets: the rate's standard error at 5% is 0.56 points.
    CHECK(rate <= 0.05 + 0.012);
    // Each load's own test holds its level, weights and all.
    CHECK(double(raw) / combined <= 0.05 + 0.01);
    CHECK(rate_raw > 0.1);  // the contrast: six loads, no correction
}
