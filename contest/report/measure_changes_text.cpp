#include "contest/report/measure_changes_text.h"

#include <algorithm>

#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

std::string adjusted_p_text(const Test& t) {
    const std::string p = format_p(t.p_adjusted);
    return p[0] == '<' ? "p" + p : "p=" + p;
}

}  // namespace

std::string measure_change_line(const MeasureChange& c) {
    const std::string& what = c.meaning.empty() ? c.measure : c.meaning;
    if (c.base_mean == 0) return "on new, " + what + " rose from none on base";
    if (c.new_mean == 0) return "on new, " + what + " fell to none";
    return "on new, " + what + " was " + fixed(c.new_mean / c.base_mean, 2) + "x base's";
}

std::string measure_changes_heading(const std::vector<LoadMeasureChanges>& changes,
                                    const ReportModel& model) {
    std::vector<std::string> methods;
    for (const auto& c : changes)
        for (const auto& m : c.methods)
            if (std::find(methods.begin(), methods.end(), m) == methods.end()) methods.push_back(m);
    std::string tests = methods.empty() ? std::string("-") : methods.front();
    for (std::size_t i = 1; i < methods.size(); ++i) tests += " or " + methods[i];
    return "What else changed (the other measures both kernels' runs recorded: the compile's "
           "counts per compile, the machine's per second; base -> new; p: " +
           tests + ", adjusted over each load's measures, " +
           stats::correction_description(model.correction) +
           "; largest change first). A measure that changed with the kernel is not thereby "
           "why the time changed.";
}

std::string measure_changes_count(const LoadMeasureChanges& c) {
    if (c.changed.empty())
        return "nothing changed beyond noise (" + std::to_string(c.tested) + " measures tested)";
    return std::to_string(c.changed.size()) + " of " + std::to_string(c.tested) +
           " measures changed beyond noise";
}

std::string measure_changes_text(const std::vector<LoadMeasureChanges>& changes,
                                 const ReportModel& model) {
    if (changes.empty()) return "";
    std::string out = "\n" + measure_changes_heading(changes, model) + "\n";
    for (const auto& c : changes) {
        out += c.load + ": " + measure_changes_count(c) + "\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& m : c.changed)
            rows.push_back({"  " + m.measure,
                            four_digits(m.base_mean) + " -> " + four_digits(m.new_mean),
                            signed_percent(m.test.effect_pct), adjusted_p_text(m.test)});
        const auto lines = align_columns(rows, {false, true, true, false});
        for (std::size_t i = 0; i < lines.size(); ++i)
            out += lines[i] + "\n    " + measure_change_line(c.changed[i]) + "\n";
        if (!c.only_base.empty())
            out += "  recorded only on base: " + join(c.only_base, ", ") + "\n";
        if (!c.only_new.empty()) out += "  recorded only on new: " + join(c.only_new, ", ") + "\n";
    }
    return out;
}

}  // namespace contest
