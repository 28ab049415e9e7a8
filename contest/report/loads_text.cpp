#include "contest/report/loads_text.h"

#include <cstdio>

#include "contest/sys/json_text.h"

namespace contest {

namespace {

std::string formatted(const char* format, auto... values) {
    const int n = std::snprintf(nullptr, 0, format, values...);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    std::snprintf(out.data(), out.size() + 1, format, values...);
    return out;
}

// A line of the list's four columns; a longer value pushes the rest right,
// as printf's widths do.
std::string list_line(const std::string& name, const std::string& sets, const std::string& unit,
                      const std::string& what) {
    return formatted("%-13s %-12s %-14s %s\n", name.c_str(), sets.c_str(), unit.c_str(),
                     what.c_str());
}

double rate_of(const LoadWork& w) {
    return w.seconds > 0 ? w.units / w.seconds : 0;
}

}  // namespace

std::string loads_list_text(const LoadList& list) {
    std::string out = list_line("LOAD", "SETS", "UNIT", "WHAT IT DOES");
    for (const LoadListRow& l : list.loads) {
        out += list_line(l.name, l.sets, l.unit, l.help);
        for (const std::string& option : l.options) out += list_line("", "", "", option);
        if (l.unavailable) out += list_line("", "", "", "unavailable here: " + *l.unavailable);
    }
    return out;
}

std::string load_work_text(const LoadWork& w) {
    const char* name = w.name.c_str();
    std::string out;
    if (w.counts_work)
        out += formatted("%s: %.1f %s in %.2f s = %.1f %s/s\n", name, w.units, w.unit.c_str(),
                         w.seconds, rate_of(w), w.unit.c_str());
    else
        out +=
            formatted("%s: %.2f s, its work not counted (no --load-cmd-units)\n", name, w.seconds);
    if (!w.secondary_unit.empty())
        out += formatted("%s: %.1f %s\n", name, w.secondary, w.secondary_unit.c_str());
    if (w.restarts > 0)
        out += formatted("%s: its command ended by itself and was started again %llu times\n", name,
                         static_cast<unsigned long long>(w.restarts));
    out += formatted("%s: CPU %.1f%% (%.1f%% of %u CPUs)\n", name, w.cpu_pct, w.cpu_pct / w.cpus,
                     w.cpus);
    if (!w.facts.empty()) out += formatted("%s: %s\n", name, json_text(w.facts, -1).c_str());
    return out;
}

std::string load_work_json(const LoadWork& w) {
    nlohmann::json j = {{"load", w.name}, {"seconds", w.seconds},     {"units", w.units},
                        {"unit", w.unit}, {"rate_per_s", rate_of(w)}, {"cpu_pct", w.cpu_pct},
                        {"cpus", w.cpus}, {"facts", w.facts}};
    if (!w.secondary_unit.empty()) {
        j["secondary"] = w.secondary;
        j["secondary_unit"] = w.secondary_unit;
    }
    if (w.restarts > 0) j["restarts"] = w.restarts;
    if (w.failure) j["failure"] = *w.failure;
    return json_text(j) + "\n";
}

}  // namespace contest
