// The formatting rules the exporters share, so "-", p-values, units and
// columns read the same in every format.
#include "contest/report/formats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <locale.h>
#include <wchar.h>

#include "contest/analysis/min_runs.h"
#include "contest/analysis/report_notes.h"
#include "contest/analysis/report_warnings.h"

namespace contest {

std::string format_p(double p) {
    if (!std::isfinite(p)) return "-";
    if (p < 0.0001) return "<0.0001";
    return fixed(p, 4);
}

std::string signed_percent(double pct) {
    if (!std::isfinite(pct)) return "-";
    const std::string digits = fixed(pct, 1);
    return (digits[0] == '-' || digits == "0.0" ? "" : "+") + digits + "%";
}

int time_decimals(const ReportModel& model) {
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.time.n && cell.time.mean < 10) return 2;
    return 1;
}

int loads_decimals(const LoadBlock& block) {
    for (const auto& cell : block.cells)
        if (std::fabs(cell.load_units.mean) >= 10000) return 0;
    return 1;
}

std::string unit_description(const LoadBlock& block) {
    if (!block.unit.empty()) return block.unit;
    for (const auto& cell : block.cells)
        if (!cell.loads_counted) return "not counted (your command, no --load-cmd-units)";
    return "none (no load runs)";
}

std::string significance_mark(const Cell& cell) {
    if (!cell.versus) return "";
    std::string mark = !cell.versus->judged ? "?" : cell.versus->significant ? "*" : "";
    return mark + (cell.versus->ratio_significant ? "^" : "");
}

std::string correction_summary(const ReportModel& model) {
    return std::string(stats::correction_title(model.correction)) + " over " +
           std::to_string(model.family_size) + " tests, changes under " +
           six_digits(model.min_effect_pct) + "% ignored";
}

std::string significance_legend(const ReportModel& model) {
    if (model.labels.size() < 2) return "";
    std::string legend = "* Time differs from the baseline " + model.baseline + " beyond noise";
    if (model.any_ratio_tested()) legend += "; ^ Ratio differs from the baseline's";
    legend += " (adjusted p < " + six_digits(model.alpha) + ", " + correction_summary(model) + ")";
    if (model.any_unjudged())
        legend += "; ? fewer than " + std::to_string(kMinRunsForSignificance) +
                  " runs on a side, not judged";
    return legend;
}

std::string join_list(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string detectable_text(const Test& t) {
    if (std::isnan(t.mde_pct)) return "-";
    if (std::isinf(t.mde_pct)) return "nothing";
    const bool points = t.resolution && t.resolution->in_points;
    // Past this, the digits say nothing more than "these runs resolve nothing".
    constexpr double kLargestShown = 1000;
    if (t.mde_pct > kLargestShown)
        return "over ±" + six_digits(kLargestShown) + (points ? " points" : "%");
    return "±" + fixed(t.mde_pct, 1) + (points ? " points" : "%");
}

std::string could_see(const Test& t) {
    if (t.significant || std::isnan(t.mde_pct)) return "";
    if (std::isinf(t.mde_pct)) return "these runs could see no difference at this level";
    const std::string text = detectable_text(t);
    if (text.starts_with("over ")) return "this comparison could see only changes " + text;
    return "this comparison could see " + text + " or more";
}

std::string test_verdict(const Test& t, const ReportModel& model) {
    if (!std::isfinite(t.p_adjusted)) return "-";
    if (t.significant) return "yes";
    if (t.p_adjusted < model.alpha) {
        return "no: below " + six_digits(model.min_effect_pct) + "%";
    }
    return "no";
}

std::vector<std::vector<std::string>> test_rows(const ReportModel& model) {
    std::vector<std::vector<std::string>> rows = {{"load", "label", "tests", "method", "statistic",
                                                   "p", "p-adj", "effect", "could see",
                                                   "significant"}};
    auto add = [&](const std::string& load, const std::string& label, const Test& t) {
        rows.push_back({load, label, t.what, t.method, fixed(t.statistic, 3), format_p(t.p),
                        format_p(t.p_adjusted), signed_percent(t.effect_pct), detectable_text(t),
                        test_verdict(t, model)});
    };
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (const auto& e = cell.ratio_estimate) {
                if (e->test) add(block.load, cell.label, *e->test);
                if (e->signed_rank && e->test->method != e->signed_rank->method)
                    add(block.load, cell.label, *e->signed_rank);
            }
            if (!cell.versus) continue;
            if (cell.versus->time_test) add(block.load, cell.label, *cell.versus->time_test);
            if (cell.versus->ratio_test) add(block.load, cell.label, *cell.versus->ratio_test);
        }
    // The same hypotheses on the other basis (net of outside work, or raw),
    // corrected as a family of their own.
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (cell.ratio_estimate && cell.ratio_estimate->test_other)
                add(block.load, cell.label, *cell.ratio_estimate->test_other);
            if (!cell.versus) continue;
            if (cell.versus->time_other) add(block.load, cell.label, *cell.versus->time_other);
            if (cell.versus->ratio_other) add(block.load, cell.label, *cell.versus->ratio_other);
        }
    return rows;
}

namespace {

// The model's tests of `what`, with the row each belongs to.
std::vector<std::pair<const Test*, std::string>> tests_of(const ReportModel& model,
                                                          const std::string& what) {
    std::vector<std::pair<const Test*, std::string>> out;
    // With two labels (compare) the load names the row; with more, the label too.
    const bool name_label = model.labels.size() > 2;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            const Test* t = nullptr;
            if (what == "load effect" && cell.ratio_estimate && cell.ratio_estimate->test)
                t = &*cell.ratio_estimate->test;
            else if (what == "Time" && cell.versus && cell.versus->time_test)
                t = &*cell.versus->time_test;
            else if (what == "Ratio" && cell.versus && cell.versus->ratio_test)
                t = &*cell.versus->ratio_test;
            if (t)
                out.emplace_back(t, name_label ? block.load + " (" + cell.label + ")" : block.load);
        }
    return out;
}

}  // namespace

std::string methods_used(const ReportModel& model, const std::string& what,
                         const std::string& none) {
    std::vector<std::pair<std::string, std::vector<std::string>>> methods;  // name, its rows
    for (const auto& [test, row] : tests_of(model, what)) {
        const std::string name = method_name(*test);
        auto it = std::find_if(methods.begin(), methods.end(),
                               [&](const auto& m) { return m.first == name; });
        if (it == methods.end()) it = methods.insert(methods.end(), {name, {}});
        if (std::find(it->second.begin(), it->second.end(), row) == it->second.end())
            it->second.push_back(row);
    }
    if (methods.empty()) return none;
    if (methods.size() == 1) return methods.front().first;
    std::string out;
    for (const auto& [name, rows] : methods) {
        if (!out.empty()) out += "; ";
        out += name + " under " + join_list(rows);
    }
    return out;
}

namespace {

// One code point from UTF-8 at p (advancing p); a byte that is not UTF-8
// reads as itself.
char32_t next_code_point(const unsigned char*& p, const unsigned char* end) {
    const unsigned char lead = *p++;
    const int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
    if (extra == 0 || end - p < extra) return lead;
    char32_t cp = lead & (0x3F >> extra);
    for (int i = 0; i < extra; ++i) {
        if ((p[i] & 0xC0) != 0x80) return lead;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    p += extra;
    return cp;
}

}  // namespace

// Columns are measured in terminal cells, not bytes: "±" is two bytes of
// UTF-8 and one cell, a CJK character three bytes and two cells. wcwidth
// needs a UTF-8 LC_CTYPE, taken for this thread only and only here, so
// the user's locale changes nothing else; without one, a code point is a cell.
std::size_t display_width(const std::string& s) {
    static const locale_t utf8 = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t(nullptr));
    const locale_t previous = utf8 ? ::uselocale(utf8) : locale_t(nullptr);
    std::size_t width = 0;
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        const char32_t cp = next_code_point(p, end);
        const int w = utf8 ? ::wcwidth(static_cast<wchar_t>(cp)) : 1;
        width += w < 0 ? 1 : static_cast<std::size_t>(w);
    }
    if (utf8) ::uselocale(previous);
    return width;
}

std::string right_aligned(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return w >= width ? text : std::string(width - w, ' ') + text;
}

std::string left_aligned(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return w >= width ? text : text + std::string(width - w, ' ');
}

std::vector<std::string> align_columns(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<bool>& right) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], display_width(row[i]));
    }
    std::vector<std::string> lines;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i) line += "  ";
            const std::string pad(widths[i] - display_width(row[i]), ' ');
            line += (i < right.size() && right[i]) ? pad + row[i] : row[i] + pad;
        }
        line.erase(line.find_last_not_of(' ') + 1);
        lines.push_back(std::move(line));
    }
    return lines;
}

nlohmann::json level_noise_json(const std::vector<LevelNoiseRow>& rows) {
    nlohmann::json out = nlohmann::json::array();
    const auto optional_number = [](const std::optional<double>& v) {
        return v ? json_number(*v) : nlohmann::json(nullptr);
    };
    for (const auto& r : rows)
        out.push_back({{"label", r.label},
                       {"load", r.load},
                       {"measure", r.measure},
                       {"boots", r.boots},
                       {"runs", r.runs},
                       {"mean", json_number(r.mean)},
                       {"between_boot_variance", json_number(r.between_boot_variance)},
                       {"within_boot_variance", json_number(r.within_boot_variance)},
                       {"between_share", json_number(r.between_share)},
                       {"f", json_number(r.f)},
                       {"p", json_number(r.p)},
                       {"boot_s", optional_number(r.boot_s)},
                       {"run_s", optional_number(r.run_s)},
                       {"advised_runs_per_boot", r.advised_runs_per_boot
                                                     ? nlohmann::json(*r.advised_runs_per_boot)
                                                     : nlohmann::json(nullptr)},
                       {"advice_at_cap", r.advice_at_cap}});
    return out;
}

nlohmann::json shared_noise_json(const std::vector<SharedNoiseRow>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
        out.push_back({{"label", r.label},
                       {"baseline", r.baseline},
                       {"load", r.load},
                       {"measure", r.measure},
                       {"pairs", r.pairs},
                       {"label_log_variance", json_number(r.label_variance)},
                       {"baseline_log_variance", json_number(r.baseline_variance)},
                       {"difference_log_variance", json_number(r.difference_variance)},
                       {"shared_share", json_number(r.shared_share)}});
    return out;
}

nlohmann::json json_number(double v) {
    // Six significant digits, the precision machine-readable formats carry
    // (enough for any timing, stable from one build to the next); null where
    // undefined.
    const std::string digits = six_digits(v);
    return digits.empty() ? nlohmann::json(nullptr)
                          : nlohmann::json(std::strtod(digits.c_str(), nullptr));
}

nlohmann::json test_json(const Test& t) {
    return {
        {"tests", t.what},
        {"method", t.method},
        {"basis", t.net_of_outside ? "net of outside work" : "raw"},
        {"statistic", json_number(t.statistic)},
        {"df", json_number(t.df)},
        {"p", json_number(t.p)},
        {"p_adjusted", json_number(t.p_adjusted)},
        {"effect_pct", json_number(t.effect_pct)},
        {"significant", t.significant},
        {"mde_pct", json_number(t.mde_pct)},
        {"mde_level", json_number(t.mde_level)},
    };
}

std::string with_emulated_banner(const ReportModel& model, const std::string& format,
                                 const std::string& text) {
    if (model.emulated_labels.empty() ||
        (format != "text" && format != "markdown" && format != "lkp" && format != "normalized"))
        return text;
    const std::string line = "*** EMULATED TIMES: " + emulated_sentence(model) + ". ***";
    return (format == "markdown" ? "> **" + line + "**\n\n" : line + "\n\n") + text;
}

}  // namespace contest
