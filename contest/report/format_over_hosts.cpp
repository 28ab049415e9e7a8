#include "contest/report/format_over_hosts.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "contest/sys/text.h"

namespace contest {
namespace {

std::string signed_pct(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f%%", v);
    return buf;
}

std::string pct_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", v);
    return buf;
}

std::string p_text(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, p < 0.001 ? "%.1e" : "%.3f", p);
    return buf;
}

std::string host_verdict(const HostEffect& e) {
    if (!e.judged) return "too few runs to judge alone";
    if (!e.significant) return "no difference";
    return e.change_pct > 0 ? "slower" : "faster";
}

// "over 3 hosts: +2.30% (95% CI ...), p 0.091 on 2 df: slower; between
// hosts tau 1.90%; 3 of 3 hosts slower, 2 beyond noise".
std::string combined_line(const LoadOverHosts& l, double alpha) {
    if (!l.change_pct)
        return "over the hosts: fewer than two hosts with this load's effect, none combined";
    const bool beyond = *l.p < alpha;
    const std::string way = *l.change_pct > 0 ? "slower" : "faster";
    return "over " + std::to_string(l.hosts.size()) + " hosts: " + signed_pct(*l.change_pct) +
           " (95% CI " + signed_pct(*l.ci_low_pct) + " .. " + signed_pct(*l.ci_high_pct) + "), p " +
           p_text(*l.p) + " on " + std::to_string(static_cast<int>(l.df)) +
           " df: " + (beyond ? way : "no difference") + "; between hosts tau " +
           pct_text(*l.tau_pct) + "; " + std::to_string(l.agree) + " of " +
           std::to_string(l.hosts.size()) + " hosts " + way + ", " +
           std::to_string(l.agree_beyond) + " beyond noise";
}

std::string text(const OverHosts& o, double alpha, bool markdown) {
    std::string out = o.fresh + " against " + o.base + " over " + std::to_string(o.hosts.size()) +
                      " hosts: each host's rounds paired and judged on its own, the hosts' "
                      "effects combined (random effects, Hartung-Knapp)\n";
    if (!o.only_one_side.empty())
        out += "left out (ran one of the two only): " + join(o.only_one_side, ", ") + "\n";
    for (const auto& l : o.loads) {
        out += "\n" + std::string(markdown ? "### " : "") + l.load + ":\n";
        if (markdown) out += "\n| Host | Change | adj. p | Verdict |\n|---|---|---|---|\n";
        for (const auto& e : l.hosts) {
            if (markdown) {
                out += "| " + e.host + " | " + signed_pct(e.change_pct) + " | " +
                       (e.judged ? p_text(e.p_adjusted) : "-") + " | " + host_verdict(e) + " |\n";
            } else {
                char row[256];
                std::snprintf(row, sizeof row, "  %-20s %9s  adj. p %-7s  %s\n",
                              printable(e.host).c_str(), signed_pct(e.change_pct).c_str(),
                              e.judged ? p_text(e.p_adjusted).c_str() : "-",
                              host_verdict(e).c_str());
                out += row;
            }
        }
        out += (markdown ? "\n" : "  ") + combined_line(l, alpha) + "\n";
    }
    return out;
}

// <, > and & as entities: host names and labels are the files' words.
std::string html_text(const std::string& s) {
    std::string out;
    for (char c : printable(s)) {
        if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '&')
            out += "&amp;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

std::string html(const OverHosts& o, double alpha) {
    std::string out =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_text(o.fresh) +
        " against " + html_text(o.base) +
        " over the hosts</title><style>body{font-family:sans-serif}table{border-collapse:"
        "collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,"
        "td:last-child{text-align:left}</style></head><body>\n<h1>" +
        html_text(o.fresh) + " against " + html_text(o.base) + " over " +
        std::to_string(o.hosts.size()) +
        " hosts</h1>\n<p>Each host's rounds paired and judged on its own; the hosts' effects "
        "combined (random effects, Hartung-Knapp).</p>\n";
    if (!o.only_one_side.empty())
        out += "<p>Left out (ran one of the two only): " + html_text(join(o.only_one_side, ", ")) +
               "</p>\n";
    for (const auto& l : o.loads) {
        out +=
            "<h2>" + html_text(l.load) +
            "</h2>\n<table><tr><th>Host</th><th>Change</th><th>adj. p</th><th>Verdict</th></tr>\n";
        for (const auto& e : l.hosts)
            out += "<tr><td>" + html_text(e.host) + "</td><td>" + signed_pct(e.change_pct) +
                   "</td><td>" + (e.judged ? p_text(e.p_adjusted) : "-") + "</td><td>" +
                   host_verdict(e) + "</td></tr>\n";
        out += "</table>\n<p>" + html_text(combined_line(l, alpha)) + "</p>\n";
    }
    return out + "</body></html>\n";
}

nlohmann::json json_of(const OverHosts& o, double alpha) {
    nlohmann::json j = {{"base", o.base},
                        {"new", o.fresh},
                        {"hosts", o.hosts},
                        {"left_out", o.only_one_side},
                        {"method", "random effects (DerSimonian-Laird tau, Hartung-Knapp t)"},
                        {"alpha", alpha},
                        {"loads", nlohmann::json::array()}};
    for (const auto& l : o.loads) {
        nlohmann::json hosts = nlohmann::json::array();
        for (const auto& e : l.hosts)
            hosts.push_back(
                {{"host", valid_utf8(e.host)},
                 {"change_pct", e.change_pct},
                 {"log_effect", e.log_effect},
                 {"log_se", e.log_se},
                 {"paired_rounds", e.pairs},
                 {"p_adjusted", e.judged ? nlohmann::json(e.p_adjusted) : nlohmann::json()},
                 {"significant", e.significant}});
        nlohmann::json load = {{"load", l.load}, {"hosts", hosts}};
        if (l.change_pct) {
            load["combined"] = {{"change_pct", *l.change_pct},
                                {"ci95_pct", {*l.ci_low_pct, *l.ci_high_pct}},
                                {"p", *l.p},
                                {"df", l.df},
                                {"tau_pct", *l.tau_pct},
                                {"significant", *l.p < alpha},
                                {"hosts_agreeing", l.agree},
                                {"hosts_agreeing_beyond_noise", l.agree_beyond}};
        }
        j["loads"].push_back(load);
    }
    return j;
}

}  // namespace

std::string format_over_hosts(const OverHosts& over, const std::string& format, double alpha) {
    if (format == "json") return json_of(over, alpha).dump(2) + "\n";
    if (format == "html") return html(over, alpha);
    return text(over, alpha, format == "markdown");
}

}  // namespace contest
