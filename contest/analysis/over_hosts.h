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
    // The standard error it is weighed by: its own (own_log_se, on own_df
    // degrees of freedom) pulled toward the hosts' pooled one (moderated_ses).
    double log_se = 0;
    double own_log_se = 0, own_df = 0;
    // own_log_se squared over the variance of one observation: 1/pairs for
    // a paired host, 1/n + 1/n for an unpaired one.
    double se_scale = 0;
    unsigned pairs = 0;   // rounds paired (0: unpaired, each side's mean)
    bool judged = false;  // this host had runs enough for its own test
    // That test's, corrected over its loads; NaN when not judged.
    double p_adjusted = std::numeric_limits<double>::quiet_NaN();
    bool significant = false;
};

struct LoadOverHosts {
    std::string load;
    std::vector<HostEffect> hosts;  // in host order
    // Combined: nullopt below two hosts with an effect. The interval is at
    // the comparison's ci_level; p is the combined test's own, p_adjusted
    // that corrected over the loads (as each host's verdicts are over its).
    std::optional<double> change_pct, ci_low_pct, ci_high_pct, p, p_adjusted, tau_pct;
    double df = 0;
    bool significant = false;   // p_adjusted under alpha and the change at least --min-effect
    unsigned agree = 0;         // hosts moved the combined effect's way
    unsigned agree_beyond = 0;  // of those, significant on their own
};

struct OverHosts {
    std::string base, fresh;  // the labels
    std::vector<std::string> hosts;
    std::vector<std::string> only_one_side;  // hosts that ran one label only: left out
    std::vector<LoadOverHosts> loads;
    double alpha = 0.05, ci_level = 0.95;  // ci_level = 1 - alpha
    std::string correction;                // "Holm over 6 loads", as said beside the verdicts
    // A label whose kernel's .config or release differs between hosts,
    // naming the hosts of each.
    std::vector<std::string> warnings;
};

// Below this many hosts, the spread between them (tau) is a rough figure:
// DerSimonian and Laird's estimate from k hosts rests on k - 1 degrees of
// freedom, and is often 0 from two or three when the hosts do differ.
inline constexpr std::size_t kHostsForTau = 5;

// Every file's host is the machine that ran contest (a --kernel file's
// host_system, not its guest's), known by its hostname and its machine key
// (a hash of /etc/machine-id); two machines of one name are shown with
// their key. UsageError when no host ran both labels; when a file records
// neither a hostname nor a machine key; when one host's files of one
// label ran at once or on different hardware (cloned images share both);
// when a label's kernel was built from different commits on different hosts.
OverHosts compare_over_hosts(const std::vector<ResultFile>& base,
                             const std::vector<ResultFile>& fresh, const ModelOptions& options);

// DerSimonian-Laird with Hartung-Knapp over (effect, se) pairs: the pooled
// effect, its interval at `level`, p and tau; nullopt below two pairs.
struct RandomEffects {
    double estimate = 0, ci_low = 0, ci_high = 0, p = 1, tau = 0, df = 0;
};
std::optional<RandomEffects> random_effects(const std::vector<double>& effects,
                                            const std::vector<double>& ses, double level = 0.95);

// Prior degrees of freedom of the pooled variance in moderated_ses.
inline constexpr double kPooledVarianceDf = 4;

// Each host's standard error, its variance pulled toward the hosts' pooled
// one as limma's moderated variances are (Smyth 2004): (d0 s0^2 + d s^2) /
// (d0 + d), s0^2 the hosts' variances pooled by their degrees of freedom, d0
// = kPooledVarianceDf. A host of 2 paired rounds (1 df) whose two
// differences happen to agree would otherwise have a standard error near 0
// and outweigh every other host; one of 10 rounds keeps mostly its own.
std::vector<double> moderated_ses(const std::vector<HostEffect>& hosts);

}  // namespace contest
