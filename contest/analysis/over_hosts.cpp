#include "contest/analysis/over_hosts.h"

#include <cmath>
#include <map>
#include <set>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/fingerprint.h"
#include "contest/analysis/ratio.h"
#include "contest/analysis/stats.h"
#include "contest/sys/errors.h"

namespace contest {
namespace {

std::vector<ResultFile> on_host(const std::vector<ResultFile>& files, const std::string& host) {
    std::vector<ResultFile> out;
    for (const auto& f : files)
        if (host_of(f) == host) out.push_back(f);
    return out;
}

// ln(NEW / BASE) under one load on one host, with its standard error, from
// the host's model: the paired t on the rounds' log differences the
// comparison itself uses, when both labels ran in one group (--vary,
// --kernel, --boot); else the log of the means' ratio, its error by the
// delta method (each side's CV over the root of its runs). False when the
// host cannot weigh in (fewer than two runs a side, or no spread at all).
bool host_effect(const Cell& fresh, const Cell& base, HostEffect& e) {
    if (const auto paired =
            paired_between_labels(fresh.round_log_times(), base.round_log_times(), "Time");
        paired && paired->resolution) {
        e.log_effect = std::log1p(paired->effect_pct / 100);
        e.log_se = paired->resolution->se;
        e.pairs = static_cast<unsigned>(paired->df + 1);
    } else {
        if (fresh.time.n < 2 || base.time.n < 2 || !(base.time.mean > 0) || !(fresh.time.mean > 0))
            return false;
        e.log_effect = std::log(fresh.time.mean / base.time.mean);
        e.log_se = std::sqrt(fresh.time.cv * fresh.time.cv / static_cast<double>(fresh.time.n) +
                             base.time.cv * base.time.cv / static_cast<double>(base.time.n));
    }
    return e.log_se > 0 && std::isfinite(e.log_se);
}

const Cell* cell_of(const LoadBlock& block, const std::string& label) {
    for (const auto& cell : block.cells)
        if (cell.label == label) return &cell;
    return nullptr;
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
        std::vector<ResultFile> both = on_host(base, host);
        for (auto& f : on_host(fresh, host)) both.push_back(std::move(f));
        ModelOptions o = options;
        o.baseline = out.base;
        o.by_host = false;
        const ReportModel model = build_report_model(both, o);
        for (const auto& block : model.blocks) {
            const Cell *cell = cell_of(block, out.fresh), *base_cell = cell_of(block, out.base);
            if (!cell || !base_cell || !cell->versus) continue;
            HostEffect e;
            e.host = host;
            e.change_pct = cell->versus->change_pct;
            // Too few runs for this host's own test: its effect still
            // weighs in over the hosts, with its own spread.
            e.judged = cell->versus->time_test.has_value();
            if (e.judged) e.p_adjusted = cell->versus->time_test->p_adjusted;
            e.significant = cell->versus->significant;
            if (!host_effect(*cell, *base_cell, e)) continue;
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
