#include "contest/analysis/over_hosts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "contest/analysis/build_report_model.h"
#include "contest/analysis/multiple_comparisons.h"
#include "contest/analysis/ratio.h"
#include "contest/analysis/stats.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_fields.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

// The machine that ran contest for `file`: a --kernel file's fingerprint
// is its guest's (a fresh machine id every boot), the host's is beside it.
const nlohmann::json& host_system(const ResultFile& file) {
    if (file.config.is_object() && file.config.contains("vm") && file.config["vm"].is_object()) {
        const nlohmann::json& vm = file.config["vm"];
        if (vm.contains("host_system") && vm["host_system"].is_object()) return vm["host_system"];
    }
    return file.system;
}

// What tells one host from another: its hostname and its machine key.
struct HostId {
    std::string hostname, machine;
    std::string key() const { return hostname + "\n" + machine; }
};

HostId host_id(const ResultFile& file) {
    const nlohmann::json& system = host_system(file);
    HostId id{string_at(system, "hostname"), string_at(system, "machine_key")};
    if (id.hostname.empty() && id.machine.empty())
        throw UsageError("contest compare --over-hosts: " + printable(file.path.string()) +
                         " records neither its host's name nor its machine: which host ran it "
                         "cannot be told");
    return id;
}

// Each host's name as shown: its hostname, with its machine key where two
// machines share one (or it has none).
std::map<std::string, std::string> shown_names(const std::vector<HostId>& ids) {
    std::map<std::string, std::set<std::string>> machines;  // hostname -> machine keys
    for (const auto& id : ids) machines[id.hostname].insert(id.machine);
    std::map<std::string, std::string> out;
    for (const auto& id : ids) {
        std::string name = id.hostname;
        if (name.empty() || machines[id.hostname].size() > 1)
            name += (name.empty() ? "" : " ") + std::string("(machine ") +
                    (id.machine.empty() ? "not recorded" : id.machine.substr(0, 8)) + ")";
        out[id.key()] = name;
    }
    return out;
}

std::vector<ResultFile> on_host(const std::vector<ResultFile>& files, const std::string& key) {
    std::vector<ResultFile> out;
    for (const auto& f : files)
        if (host_id(f).key() == key) out.push_back(f);
    return out;
}

// What makes one machine another, for telling clones apart.
std::string hardware_of(const ResultFile& file) {
    const nlohmann::json& s = host_system(file);
    std::string out = string_at(s, "cpu_model");
    if (s.is_object() && s.contains("cpus_online") && s["cpus_online"].is_number())
        out += ", " + std::to_string(s["cpus_online"].get<long>()) + " CPUs";
    // MemTotal moves by a few MiB between kernels: in GiB, rounded.
    if (s.is_object() && s.contains("mem_total_bytes") && s["mem_total_bytes"].is_number())
        out += ", " + std::to_string(std::lround(s["mem_total_bytes"].get<double>() / (1 << 30))) +
               " GiB";
    return out;
}

// One host's files of one label that cannot be one machine's: run at once,
// or on different hardware. Cloned images share a hostname and a machine id.
void refuse_merged_machines(const std::vector<ResultFile>& files, const std::string& name) {
    for (std::size_t i = 0; i < files.size(); ++i)
        for (std::size_t j = i + 1; j < files.size(); ++j) {
            const ResultFile &a = files[i], &b = files[j];
            if (a.label != b.label) continue;
            std::string why;
            if (hardware_of(a) != hardware_of(b))
                why = "on different machines (" + hardware_of(a) + "; " + hardware_of(b) + ")";
            else if (!a.started_at.empty() && !a.finished_at.empty() && !b.started_at.empty() &&
                     !b.finished_at.empty() && a.started_at < b.finished_at &&
                     b.started_at < a.finished_at)
                why = "at the same time";
            if (why.empty()) continue;
            throw UsageError("contest compare --over-hosts: host " + printable(name) + ": " +
                             printable(a.label) + "'s files " + printable(a.path.string()) +
                             " and " + printable(b.path.string()) + " ran " + why +
                             ": hosts cloned from one image share their name and machine id; "
                             "give each its own (hostnamectl, systemd-machine-id-setup)");
        }
}

// The commit a file's kernel was built from (kbuild's record); "" for none.
std::string built_commit(const ResultFile& file) {
    for (const char* place : {"kernel", "boot"})
        if (file.config.is_object() && file.config.contains(place) &&
            file.config[place].is_object() && file.config[place].contains("build"))
            if (const std::string c = string_at(file.config[place]["build"], "commit"); !c.empty())
                return c;
    return "";
}

std::string config_sha_of(const ResultFile& file) {
    const nlohmann::json& s = file.system;
    if (s.is_object() && s.contains("kernel") && s["kernel"].is_object() &&
        s["kernel"].contains("config") && s["kernel"]["config"].is_object())
        return string_at(s["kernel"]["config"], "sha256");
    return "";
}

// "abc on box1, box2; def on box3": the hosts of each value.
std::string values_by_host(const std::map<std::string, std::set<std::string>>& hosts_of) {
    std::vector<std::string> parts;
    for (const auto& [value, hosts] : hosts_of)
        parts.push_back(
            printable(value.empty() ? "not recorded" : value) + " on " +
            printable(join(std::vector<std::string>(hosts.begin(), hosts.end()), ", ")));
    return join(parts, "; ");
}

// A label's kernel the same on every host: built from one commit (else
// refused: the hosts measured different kernels), with one .config and
// release (else said: a per-host config may be meant, but is then part of
// what is combined).
void check_label_kernels(const std::vector<ResultFile>& files,
                         const std::map<std::string, std::string>& name_of, OverHosts& out) {
    struct Fact {
        const char* what;
        std::string (*of)(const ResultFile&);
        bool refuse;
    };
    const Fact facts[] = {
        {"the commit its kernel was built from", built_commit, true},
        {"its kernel's .config (SHA-256)",
         [](const ResultFile& f) { return config_sha_of(f).substr(0, 12); }, false},
        {"its kernel's release",
         [](const ResultFile& f) { return string_at(f.system, "kernel_release"); }, false}};
    const std::string label = files.front().label;
    for (const Fact& fact : facts) {
        std::map<std::string, std::set<std::string>> hosts_of;
        for (const auto& f : files) hosts_of[fact.of(f)].insert(name_of.at(host_id(f).key()));
        if (hosts_of.size() < 2) continue;
        const std::string line = printable(label) + ": " + fact.what +
                                 " differs between hosts: " + values_by_host(hosts_of);
        if (fact.refuse)
            throw UsageError("contest compare --over-hosts: " + line +
                             "; the hosts measured different kernels under one label");
        out.warnings.push_back(line + "; the hosts' effects are combined as they are");
    }
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
        e.own_log_se = paired->resolution->se;
        e.own_df = paired->df;
        e.pairs = static_cast<unsigned>(paired->df + 1);
        e.se_scale = 1 / static_cast<double>(e.pairs);
    } else {
        if (fresh.time.n < 2 || base.time.n < 2 || !(base.time.mean > 0) || !(fresh.time.mean > 0))
            return false;
        const auto nf = static_cast<double>(fresh.time.n), nb = static_cast<double>(base.time.n);
        e.log_effect = std::log(fresh.time.mean / base.time.mean);
        e.own_log_se =
            std::sqrt(fresh.time.cv * fresh.time.cv / nf + base.time.cv * base.time.cv / nb);
        e.own_df = nf + nb - 2;
        e.se_scale = 1 / nf + 1 / nb;
    }
    e.log_se = e.own_log_se;
    return e.own_log_se > 0 && std::isfinite(e.own_log_se) && e.own_df > 0;
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

std::vector<double> moderated_ses(const std::vector<HostEffect>& hosts) {
    // Each host's variance of one observation (a round's log difference),
    // pooled over the hosts by their degrees of freedom.
    double df_sum = 0, pooled = 0;
    for (const auto& h : hosts) {
        df_sum += h.own_df;
        pooled += h.own_df * h.own_log_se * h.own_log_se / h.se_scale;
    }
    std::vector<double> out;
    for (const auto& h : hosts) {
        if (!(df_sum > 0)) {
            out.push_back(h.own_log_se);
            continue;
        }
        const double own = h.own_log_se * h.own_log_se / h.se_scale;
        const double moderated =
            (kPooledVarianceDf * pooled / df_sum + h.own_df * own) / (kPooledVarianceDf + h.own_df);
        out.push_back(std::sqrt(moderated * h.se_scale));
    }
    return out;
}

std::optional<RandomEffects> random_effects(const std::vector<double>& effects,
                                            const std::vector<double>& ses, double level) {
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
    // Not floored at the random-effects standard error sqrt(1 / sws): with
    // each host's variance moderated (moderated_ses) the floor only made the
    // test conservative (a null fleet's load called different 0.07% of the
    // time at alpha 0.05, where 3 to 5% is the level).
    double se = std::sqrt(hk / (df * sws));
    if (!(se > 0)) se = std::sqrt(1 / sws);  // every host the same effect to the last digit
    const double t = stats::t_quantile(1 - (1 - level) / 2, df);
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
    out.alpha = options.alpha;
    out.ci_level = 1 - options.alpha;
    std::vector<HostId> ids;
    for (const auto* side : {&base, &fresh})
        for (const auto& f : *side) ids.push_back(host_id(f));
    const auto name_of = shown_names(ids);
    std::set<std::string> hb, hn;
    for (const auto& f : base) hb.insert(host_id(f).key());
    for (const auto& f : fresh) hn.insert(host_id(f).key());
    std::vector<std::string> keys;  // of the hosts that ran both, by name
    for (const auto& h : hb)
        if (hn.count(h))
            keys.push_back(h);
        else
            out.only_one_side.push_back(name_of.at(h));
    for (const auto& h : hn)
        if (!hb.count(h)) out.only_one_side.push_back(name_of.at(h));
    std::sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
        return name_of.at(a) < name_of.at(b);
    });
    std::sort(out.only_one_side.begin(), out.only_one_side.end());
    for (const auto& k : keys) out.hosts.push_back(name_of.at(k));
    if (out.hosts.empty())
        throw UsageError("contest compare --over-hosts: no host ran both " + out.base + " and " +
                         out.fresh);
    for (const auto* side : {&base, &fresh}) {
        for (const auto& k : keys) refuse_merged_machines(on_host(*side, k), name_of.at(k));
        std::vector<ResultFile> compared;
        for (const auto& f : *side)
            if (std::find(keys.begin(), keys.end(), host_id(f).key()) != keys.end())
                compared.push_back(f);
        check_label_kernels(compared, name_of, out);
    }
    std::map<std::string, LoadOverHosts> by_load;
    std::vector<std::string> load_order;
    for (const auto& key : keys) {
        std::vector<ResultFile> both = on_host(base, key);
        for (auto& f : on_host(fresh, key)) both.push_back(std::move(f));
        ModelOptions o = options;
        o.baseline = out.base;
        o.by_host = false;
        const ReportModel model = build_report_model(both, o);
        for (const auto& block : model.blocks) {
            const Cell *cell = cell_of(block, out.fresh), *base_cell = cell_of(block, out.base);
            if (!cell || !base_cell || !cell->versus) continue;
            HostEffect e;
            e.host = name_of.at(key);
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
    std::vector<double> p;  // each load's combined p, NaN where none: one family
    for (const auto& name : load_order) {
        LoadOverHosts l = by_load[name];
        const std::vector<double> ses = moderated_ses(l.hosts);
        std::vector<double> effects;
        for (std::size_t i = 0; i < l.hosts.size(); ++i) {
            l.hosts[i].log_se = ses[i];
            effects.push_back(l.hosts[i].log_effect);
        }
        if (const auto r = random_effects(effects, ses, out.ci_level)) {
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
        p.push_back(l.p.value_or(std::nan("")));
        out.loads.push_back(std::move(l));
    }
    // The loads' combined verdicts corrected together, as one host's are.
    const auto adjusted = stats::adjust_p_values(p, options.correction);
    std::size_t family = 0;
    for (std::size_t i = 0; i < out.loads.size(); ++i) {
        LoadOverHosts& l = out.loads[i];
        if (!l.p) continue;
        ++family;
        l.p_adjusted = adjusted[i];
        l.significant =
            *l.p_adjusted < options.alpha && std::fabs(*l.change_pct) >= options.min_effect_pct;
    }
    out.correction = std::string(stats::correction_title(options.correction)) + " over " +
                     std::to_string(family) + (family == 1 ? " load" : " loads");
    return out;
}

}  // namespace contest
