#include "contest/observe/pressure.h"

#include <sys/stat.h>

#include <array>
#include <sstream>

#include "contest/sys/text_file.h"

namespace contest {

namespace {

bool of_interest(const std::string& name) {
    static const std::array<const char*, 6> prefixes = {
        "pgscan", "pgsteal", "allocstall", "compact_", "thp_fault", "workingset_refault"};
    static const std::array<const char*, 5> names = {"pswpin", "pswpout", "pgmajfault", "pgfault",
                                                     "oom_kill"};
    for (const char* p : prefixes)
        if (name.rfind(p, 0) == 0) return true;
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

}  // namespace

std::optional<PsiResource> parse_psi(const std::string& text) {
    PsiResource r;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto total = line.find("total=");
        if (total == std::string::npos) continue;
        const std::uint64_t us = std::stoull(line.substr(total + 6));
        if (line.rfind("some ", 0) == 0) r.some_us = us;
        if (line.rfind("full ", 0) == 0) r.full_us = us;
    }
    if (!r.some_us && !r.full_us) return std::nullopt;
    return r;
}

PsiTotals read_psi() {
    PsiTotals t;
    struct stat st;
    if (::stat("/proc/pressure", &st) != 0) {
        // The kernel makes /proc/pressure only when PSI is built in and on.
        const std::string cmdline = read_first_line("/proc/cmdline").value_or("");
        t.reason = cmdline.find("psi=0") != std::string::npos
                       ? "no /proc/pressure: PSI is turned off by psi=0 on the kernel command line"
                       : "no /proc/pressure: the kernel is built without CONFIG_PSI, or with "
                         "CONFIG_PSI_DEFAULT_DISABLED and booted without psi=1";
        return t;
    }
    const std::array<std::pair<const char*, PsiResource*>, 3> files = {
        {{"cpu", &t.cpu}, {"memory", &t.memory}, {"io", &t.io}}};
    for (auto [name, resource] : files) {
        std::string why;
        auto text = read_text_file(std::string("/proc/pressure/") + name, &why);
        if (!text) {
            t.reason = why;
            return t;
        }
        if (auto parsed = parse_psi(*text)) *resource = *parsed;
    }
    t.available = true;
    return t;
}

std::map<std::string, std::uint64_t> parse_vmstat(const std::string& text) {
    std::map<std::string, std::uint64_t> counters;
    std::istringstream in(text);
    std::string name;
    std::uint64_t value;
    while (in >> name >> value)
        if (of_interest(name)) counters[name] = value;
    return counters;
}

PressureSnapshot read_pressure() {
    PressureSnapshot s;
    s.psi = read_psi();
    std::string why;
    if (auto text = read_text_file("/proc/vmstat", &why))
        s.vmstat = parse_vmstat(*text);
    else
        s.vmstat_reason = why;
    return s;
}

std::optional<std::uint64_t> counter_delta(std::uint64_t earlier, std::uint64_t later) {
    if (later < earlier) return std::nullopt;
    return later - earlier;
}

nlohmann::json pressure_delta(const PressureSnapshot& start, const PressureSnapshot& end,
                              double window_s) {
    nlohmann::json out;
    nlohmann::json resets = nlohmann::json::array();
    auto delta_json = [&](const std::string& name, std::uint64_t a, std::uint64_t b) {
        auto d = counter_delta(a, b);
        if (!d)
            resets.push_back(name + " went backwards (" + std::to_string(a) + " -> " +
                             std::to_string(b) + "): counter reset, delta not known");
        return d ? nlohmann::json(*d) : nlohmann::json();
    };

    if (!start.psi.available || !end.psi.available) {
        const std::string& why = start.psi.available ? end.psi.reason : start.psi.reason;
        out["psi"] = {{"available", false}, {"reason", why}};
    } else {
        nlohmann::json psi{{"available", true}};
        const std::array<std::tuple<const char*, const PsiResource*, const PsiResource*>, 3>
            resources = {{{"cpu", &start.psi.cpu, &end.psi.cpu},
                          {"memory", &start.psi.memory, &end.psi.memory},
                          {"io", &start.psi.io, &end.psi.io}}};
        for (auto [name, a, b] : resources) {
            nlohmann::json r;
            for (auto [kind, x, y] : {std::tuple{"some", &a->some_us, &b->some_us},
                                      std::tuple{"full", &a->full_us, &b->full_us}}) {
                const std::string key = std::string(kind) + "_us";
                if (!*x || !*y) {
                    r[key] = nullptr;
                    continue;
                }
                r[key] = delta_json(std::string(name) + "." + kind, **x, **y);
                if (window_s > 0 && r[key].is_number())
                    r[std::string(kind) + "_pct"] = r[key].get<double>() / (window_s * 1e6) * 100.0;
            }
            psi[name] = r;
        }
        out["psi"] = psi;
    }

    nlohmann::json vm = nlohmann::json::object();
    if (start.vmstat.empty() || end.vmstat.empty()) {
        out["vmstat"] = {
            {"reason", start.vmstat_reason.empty() ? end.vmstat_reason : start.vmstat_reason}};
    } else {
        for (const auto& [name, a] : start.vmstat)
            if (auto it = end.vmstat.find(name); it != end.vmstat.end())
                vm[name] = delta_json(name, a, it->second);
        out["vmstat"] = vm;
    }
    out["resets"] = resets;
    return out;
}

}  // namespace contest
