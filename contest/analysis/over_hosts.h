#pragma once
// One comparison over many hosts (a fleet): NEW against BASE on every host
// that ran both, each host judged on its own (its rounds paired, the
// correction over its own loads, as `contest compare` judges one machine),
// and each host's effect then combined into one per load, each host one
// observation: a random-effects estimate (DerSimonian and Laird's spread
// between hosts, tau, with Hartung and Knapp's t on k - 1 degrees of freedom:
// with a handful of hosts a normal interval would be far too narrow), with
// how many hosts agree in direction and how many of those beyond noise. A
// scheduler change can help one machine and hurt another: tau says how much
// the hosts differ, not only how much they moved on average.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/model_options.h"
#include "contest/result/result_file.h"

namespace contest {

struct HostEffect {
    std::string host;
    double change_pct = 0;  // NEW's Time against BASE's on this host
    double log_effect = 0;  // ln(NEW / BASE): what is combined
    double log_se = 0;
    unsigned pairs = 0;   // rounds paired (0: unpaired, each side's mean)
    bool judged = false;  // this host had runs enough for its own test
    // That test's, corrected over its loads; NaN when not judged.
    double p_adjusted = std::numeric_limits<double>::quiet_NaN();
    bool significant = false;
};

struct LoadOverHosts {
    std::string load;
    std::vector<HostEffect> hosts;  // in host order
    // Combined: nullopt below two hosts with an effect.
    std::optional<double> change_pct, ci_low_pct, ci_high_pct, p, tau_pct;
    double df = 0;
    unsigned agree = 0;         // hosts moved the combined effect's way
    unsigned agree_beyond = 0;  // of those, significant on their own
};

struct OverHosts {
    std::string base, fresh;  // the labels
    std::vector<std::string> hosts;
    std::vector<std::string> only_one_side;  // hosts that ran one label only: left out
    std::vector<LoadOverHosts> loads;
};

// Every file's host is its fingerprint's hostname. UsageError when fewer
// than one host ran both labels.
OverHosts compare_over_hosts(const std::vector<ResultFile>& base,
                             const std::vector<ResultFile>& fresh, const ModelOptions& options);

// DerSimonian-Laird with Hartung-Knapp over (effect, se) pairs: the pooled
// effect, its 95% interval, p and tau; nullopt below two pairs.
struct RandomEffects {
    double estimate = 0, ci_low = 0, ci_high = 0, p = 1, tau = 0, df = 0;
};
std::optional<RandomEffects> random_effects(const std::vector<double>& effects,
                                            const std::vector<double>& ses);

}  // namespace contest
