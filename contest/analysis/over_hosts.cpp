#include "contest/analysis/over_hosts.h"

#include <cmath>
#include <map>
#include <set>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/stats.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

std::string host_of(const ResultFile& f) {
    const auto h = f.system.find("hostname");
    return h != f.system.end() && h->is_string() ? h->get<std::string>() : "?";
}

std::vector<ResultFile> on_host(const std::vector<ResultFile>& files, const std::string& host) {
    std::vector<ResultFile> out;
    for (const auto& f : files)
        if (host_of(f) == host) out.push_back(f);
    return out;
}

// The run's group (--vary, --kernel, --boot: one run of several labels),
// whose labels' rounds pair; "" for none.
std::string group_of(const ResultFile& f) {
    const auto vary = f.config.find("vary");
    if (vary == f.config.end() || !vary->is_object()) return "";
    const auto g = vary->find("group");
    return g != vary->end() && g->is_string() ? g->get<std::string>() : "";
}

// Mean ln(Time) of a side's ok runs under `load`, by round.
std::map<int, double> log_times(const std::vector<ResultFile>& files, const std::string& load) {
    std::map<int, std::pair<double, int>> sum;
    for (const auto& f : files)
        for (const auto& r : f.runs)
            if (r.load == load && r.ok() && r.wall_s > 0) {
                auto& s = sum[r.round];
                s.first += std::log(r.wall_s);
                ++s.second;
            }
    std::map<int, double> out;
    for (const auto& [round, s] : sum) out[round] = s.first / s.second;
    return out;
}

// ln(NEW / BASE) and its standard error: the rounds' paired differences
// when both sides ran in one group, else the difference of the means.
bool log_effect(const std::vector<ResultFile>& base, const std::vector<ResultFile>& fresh,
                const std::string& load, HostEffect& e) {
    const auto b = log_times(base, load), n = log_times(fresh, load);
    const bool paired = !base.empty() && !fresh.empty() && !group_of(base.front()).empty() &&
                        group_of(base.front()) == group_of(fresh.front());
    if (paired) {
        std::vector<double> d;
        for (const auto& [round, v] : n)
            if (const auto it = b.find(round); it != b.end()) d.push_back(v - it->second);
        const stats::Summary s = stats::summarize(d);
        if (d.size() < 2 || !std::isfinite(s.sd)) return false;
        e.log_effect = s.mean;
        e.log_se = s.sd / std::sqrt(static_cast<double>(d.size()));
        e.pairs = static_cast<unsigned>(d.size());
    } else {
        std::vector<double> lb, ln;
        for (const auto& [round, v] : b) lb.push_back(v);
        for (const auto& [round, v] : n) ln.push_back(v);
        const stats::Summary sb = stats::summarize(lb), sn = stats::summarize(ln);
        if (lb.size() < 2 || ln.size() < 2) return false;
        e.log_effect = sn.mean - sb.mean;
        e.log_se = std::sqrt(sb.sd * sb.sd / lb.size() + sn.sd * sn.sd / ln.size());
    }
    // No spread at all: a host that cannot weigh in.
    return e.log_se > 0 && std::isfinite(e.log_se);
}

double pct(double log_ratio) {
    return 100 * std::expm1(log_ratio);
}

}  // namespace

std::optional<RandomEffects> random_effects(const std::vector<double>& effects,
                                            const std::vector<double>& ses) {
    const std::size_t k = effects.size();
    if (k < 2 || ses.size() != k) return std::nullopt;
    double sw = 0, sw2 = 0, swx = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const double w = 1 / (ses[i] * ses[i]);
        sw += w;
        sw2 += w * w;
        swx += w * effects[i];
    }
    const double fixed = swx / sw;
    double q = 0;
    for (std::size_t i = 0; i < k; ++i)
        q += (effects[i] - fixed) * (effects[i] - fixed) / (ses[i] * ses[i]);
    const double df = static_cast<double>(k - 1);
    const double tau2 = std::max(0.0, (q - df) / (sw - sw2 / sw));
    double sws = 0, swsx = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const double w = 1 / (ses[i] * ses[i] + tau2);
        sws += w;
        swsx += w * effects[i];
    }
    RandomEffects r;
    r.estimate = swsx / sws;
    // Hartung-Knapp: the spread of the hosts about the estimate, on k - 1 df.
    double hk = 0;
    for (std::size_t i = 0; i < k; ++i)
        hk += (effects[i] - r.estimate) * (effects[i] - r.estimate) / (ses[i] * ses[i] + tau2);
    double se = std::sqrt(hk / (df * sws));
    // Never narrower than the random-effects standard error itself.
    se = std::max(se, std::sqrt(1 / sws));
    const double t = stats::t_quantile(0.975, df);
    r.ci_low = r.estimate - t * se;
    r.ci_high = r.estimate + t * se;
    r.p = stats::t_test_p(r.estimate / se, df);
    r.tau = std::sqrt(tau2);
    r.df = df;
    return r;
}

OverHosts compare_over_hosts(const std::vector<ResultFile>& base,
                             const std::vector<ResultFile>& fresh, const ModelOptions& options) {
    OverHosts out;
    out.base = base.front().label;
    out.fresh = fresh.front().label;
    std::set<std::string> hb, hn;
    for (const auto& f : base) hb.insert(host_of(f));
    for (const auto& f : fresh) hn.insert(host_of(f));
    for (const auto& h : hb) (hn.count(h) ? out.hosts : out.only_one_side).push_back(h);
    for (const auto& h : hn)
        if (!hb.count(h)) out.only_one_side.push_back(h);
    if (out.hosts.empty())
        throw UsageError("contest compare --over-hosts: no host ran both " + out.base + " and " +
                         out.fresh);
    std::map<std::string, LoadOverHosts> by_load;
    std::vector<std::string> load_order;
    for (const auto& host : out.hosts) {
        const auto b = on_host(base, host), n = on_host(fresh, host);
        std::vector<ResultFile> both = b;
        both.insert(both.end(), n.begin(), n.end());
        ModelOptions o = options;
        o.baseline = out.base;
        o.by_host = false;
        const ReportModel model = build_report_model(both, o);
        for (const auto& block : model.blocks)
            for (const auto& cell : block.cells) {
                if (cell.label != out.fresh || !cell.versus) continue;
                HostEffect e;
                e.host = host;
                e.change_pct = cell.versus->change_pct;
                // Too few runs for this host's own test: its effect still
                // weighs in over the hosts, with its own spread.
                e.judged = cell.versus->time_test.has_value();
                if (e.judged) e.p_adjusted = cell.versus->time_test->p_adjusted;
                e.significant = cell.versus->significant;
                if (!log_effect(b, n, block.load, e)) continue;
                if (!by_load.count(block.load)) load_order.push_back(block.load);
                LoadOverHosts& l = by_load[block.load];
                l.load = block.load;
                l.hosts.push_back(e);
            }
    }
    for (const auto& name : load_order) {
        LoadOverHosts l = by_load[name];
        std::vector<double> effects, ses;
        for (const auto& e : l.hosts) {
            effects.push_back(e.log_effect);
            ses.push_back(e.log_se);
        }
        if (const auto r = random_effects(effects, ses)) {
            l.change_pct = pct(r->estimate);
            l.ci_low_pct = pct(r->ci_low);
            l.ci_high_pct = pct(r->ci_high);
            l.p = r->p;
            l.tau_pct = 100 * r->tau;
            l.df = r->df;
            for (const auto& e : l.hosts)
                if ((e.log_effect > 0) == (r->estimate > 0)) {
                    ++l.agree;
                    if (e.significant) ++l.agree_beyond;
                }
        }
        out.loads.push_back(std::move(l));
    }
    return out;
}

}  // namespace contest
