#include "contest/report/format_over_hosts.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "contest/report/formats.h"
#include "contest/report/svg_common.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

std::string host_verdict(const HostEffect& e) {
    if (!e.judged) return "too few runs to judge alone";
    if (!e.significant) return "no difference";
    return e.change_pct > 0 ? "slower" : "faster";
}

// "95%": the level of the combined intervals.
std::string level_text(const OverHosts& o) {
    return six_digits(o.ci_level * 100) + "%";
}

// "over 3 hosts: +2.30% (95% CI ...), p 0.091 on 2 df, adjusted 0.18:
// no difference; between hosts tau 1.90% (from 3 hosts only: a rough
// figure); 3 of 3 hosts slower, 2 beyond noise".
std::string combined_line(const OverHosts& o, const LoadOverHosts& l) {
    if (!l.change_pct)
        return "over the hosts: fewer than two hosts with this load's effect, none combined";
    const std::string way = *l.change_pct > 0 ? "slower" : "faster";
    const std::size_t k = l.hosts.size();
    const std::string tau_caveat =
        k < kHostsForTau ? " (from " + std::to_string(k) + " hosts only: a rough figure)" : "";
    return "over " + std::to_string(k) + " hosts: " + signed_percent(*l.change_pct) + " (" +
           level_text(o) + " CI " + signed_percent(*l.ci_low_pct) + " .. " +
           signed_percent(*l.ci_high_pct) + "), p " + format_p(*l.p) + " on " +
           std::to_string(static_cast<int>(l.df)) + " df, adjusted " + format_p(*l.p_adjusted) +
           ": " + (l.significant ? way : "no difference") + "; between hosts tau " +
           fixed(*l.tau_pct, 1) + "%" + tau_caveat + "; " + std::to_string(l.agree) + " of " +
           std::to_string(k) + " hosts " + way + ", " + std::to_string(l.agree_beyond) +
           " beyond noise";
}

// What the combined verdicts stand on, said once under the header.
std::string method_line(const OverHosts& o) {
    return "combined: random effects (DerSimonian-Laird tau, Hartung-Knapp t), each host's "
           "variance moderated toward the hosts' pooled one; verdicts at alpha " +
           six_digits(o.alpha) + ", " + o.correction + "; intervals at " + level_text(o);
}

std::string text(const OverHosts& o, bool markdown) {
    std::string out = o.fresh + " against " + o.base + " over " + std::to_string(o.hosts.size()) +
                      " hosts: each host's rounds paired and judged on its own, the hosts' "
                      "effects combined\n" +
                      method_line(o) + "\n";
    if (!o.only_one_side.empty())
        out += "left out (ran one of the two only): " + join(o.only_one_side, ", ") + "\n";
    for (const auto& w : o.warnings) out += "warning: " + w + "\n";
    for (const auto& l : o.loads) {
        out += "\n" + std::string(markdown ? "### " : "") + l.load + ":\n";
        if (markdown) out += "\n| Host | Change | adj. p | Verdict |\n|---|---|---|---|\n";
        for (const auto& e : l.hosts) {
            if (markdown) {
                out += "| " + e.host + " | " + signed_percent(e.change_pct) + " | " +
                       format_p(e.p_adjusted) + " | " + host_verdict(e) + " |\n";
            } else {
                char row[256];
                std::snprintf(row, sizeof row, "  %-20s %9s  adj. p %-7s  %s\n",
                              printable(e.host).c_str(), signed_percent(e.change_pct).c_str(),
                              format_p(e.p_adjusted).c_str(), host_verdict(e).c_str());
                out += row;
            }
        }
        out += (markdown ? "\n" : "  ") + combined_line(o, l) + "\n";
    }
    return out;
}

// The files' words (labels, hosts) as HTML text: control characters
// shown, the markup characters as entities.
std::string html_text(const std::string& s) {
    return escape_xml(printable(s));
}

std::string html(const OverHosts& o) {
    std::string out =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_text(o.fresh) +
        " against " + html_text(o.base) +
        " over the hosts</title><style>body{font-family:sans-serif}table{border-collapse:"
        "collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,"
        "td:last-child{text-align:left}</style></head><body>\n<h1>" +
        html_text(o.fresh) + " against " + html_text(o.base) + " over " +
        std::to_string(o.hosts.size()) +
        " hosts</h1>\n<p>Each host's rounds paired and judged on its own; the hosts' effects "
        "combined.</p>\n<p>" +
        html_text(method_line(o)) + "</p>\n";
    if (!o.only_one_side.empty())
        out += "<p>Left out (ran one of the two only): " + html_text(join(o.only_one_side, ", ")) +
               "</p>\n";
    for (const auto& w : o.warnings)
        out += "<p><strong>Warning:</strong> " + html_text(w) + "</p>\n";
    for (const auto& l : o.loads) {
        out +=
            "<h2>" + html_text(l.load) +
            "</h2>\n<table><tr><th>Host</th><th>Change</th><th>adj. p</th><th>Verdict</th></tr>\n";
        for (const auto& e : l.hosts)
            out += "<tr><td>" + html_text(e.host) + "</td><td>" + signed_percent(e.change_pct) +
                   "</td><td>" + format_p(e.p_adjusted) + "</td><td>" + host_verdict(e) +
                   "</td></tr>\n";
        out += "</table>\n<p>" + html_text(combined_line(o, l)) + "</p>\n";
    }
    return out + "</body></html>\n";
}

nlohmann::json json_of(const OverHosts& o) {
    nlohmann::json j = {{"base", o.base},
                        {"new", o.fresh},
                        {"hosts", o.hosts},
                        {"left_out", o.only_one_side},
                        {"method",
                         "random effects (DerSimonian-Laird tau, Hartung-Knapp t), each host's "
                         "variance moderated toward the hosts' pooled one"},
                        {"alpha", o.alpha},
                        {"correction", o.correction},
                        {"ci_level", o.ci_level},
                        {"warnings", o.warnings},
                        {"loads", nlohmann::json::array()}};
    for (const auto& l : o.loads) {
        nlohmann::json hosts = nlohmann::json::array();
        for (const auto& e : l.hosts)
            hosts.push_back({{"host", valid_utf8(e.host)},
                             {"change_pct", e.change_pct},
                             {"log_effect", e.log_effect},
                             {"log_se", e.log_se},
                             {"own_log_se", e.own_log_se},
                             {"own_df", e.own_df},
                             {"paired_rounds", e.pairs},
                             {"p_adjusted", e.p_adjusted},  // null when not judged (NaN)
                             {"significant", e.significant}});
        nlohmann::json load = {{"load", l.load}, {"hosts", hosts}};
        if (l.change_pct) {
            load["combined"] = {{"change_pct", *l.change_pct},
                                {"ci_pct", {*l.ci_low_pct, *l.ci_high_pct}},
                                {"p", *l.p},
                                {"p_adjusted", *l.p_adjusted},
                                {"df", l.df},
                                {"tau_pct", *l.tau_pct},
                                {"tau_rough", l.hosts.size() < kHostsForTau},
                                {"significant", l.significant},
                                {"hosts_agreeing", l.agree},
                                {"hosts_agreeing_beyond_noise", l.agree_beyond}};
        }
        j["loads"].push_back(load);
    }
    return j;
}

}  // namespace

std::string format_over_hosts(const OverHosts& over, const std::string& format) {
    if (format == "json") return json_of(over).dump(2) + "\n";
    if (format == "html") return html(over);
    return text(over, format == "markdown");
}

}  // namespace contest
