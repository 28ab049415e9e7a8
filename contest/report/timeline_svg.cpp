#include "contest/report/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "contest/report/svg_common.h"
#include "contest/sys/errors.h"

namespace contest {

namespace {

struct Series {
    const char* column;
    const char* label;
};

struct PanelSpec {
    const char* signal;
    const char* title;
    bool stacked;  // areas on top of each other (parts of one whole), else lines
    bool percent;  // a share of the machine or of time: the scale ends at 100
    std::vector<Series> series;
};

// Top to bottom. Dirty and writeback get their own panel: beside free
// memory (tens of GiB) their hundreds of MiB would be a flat line.
const PanelSpec kPanels[] = {
    {"cpu",
     "CPU",
     true,
     true,
     {{"cpu_user_pct", "user"},
      {"cpu_system_pct", "system"},
      {"cpu_iowait_pct", "iowait"},
      {"cpu_steal_pct", "steal"}}},
    {"psi",
     "Pressure stalls (PSI)",
     false,
     true,
     {{"psi_cpu_some_pct", "cpu some"},
      {"psi_memory_some_pct", "memory some"},
      {"psi_memory_full_pct", "memory full"},
      {"psi_io_some_pct", "io some"},
      {"psi_io_full_pct", "io full"}}},
    {"disk", "Disk", false, false, {{"disk_read_mib_s", "read"}, {"disk_write_mib_s", "write"}}},
    {"memory",
     "Memory",
     false,
     false,
     {{"mem_free_mib", "free"}, {"mem_cached_mib", "page cache"}}},
    {"dirty",
     "Dirty and writeback",
     false,
     false,
     {{"mem_dirty_mib", "dirty"}, {"mem_writeback_mib", "writeback"}}},
    {"latency", "Wakeup latency", false, false, {{"latency_us", "latency"}}},
};

using Values = std::vector<std::optional<double>>;

Values column_values(const nlohmann::json& columns, const char* name, std::size_t n) {
    Values v(n);
    const auto it = columns.find(name);
    if (it == columns.end() || !it->is_array()) return v;
    for (std::size_t i = 0; i < n && i < it->size(); ++i)
        if ((*it)[i].is_number()) v[i] = (*it)[i].get<double>();
    return v;
}

std::string point(double x, double y) {
    return svg_number(x) + "," + svg_number(y) + " ";
}

}  // namespace

std::string timeline_svg(const nlohmann::json& timeline, const std::string& title) {
    const auto t_it = timeline.find("t_s");
    const auto c_it = timeline.find("columns");
    if (t_it == timeline.end() || !t_it->is_array() || c_it == timeline.end() || !c_it->is_object())
        throw UsageError("timeline: no \"t_s\" array or \"columns\" object");
    std::vector<double> t;
    for (const auto& v : *t_it) t.push_back(v.is_number() ? v.get<double>() : 0);
    const nlohmann::json& columns = *c_it;
    const nlohmann::json units = timeline.value("units", nlohmann::json::object());

    std::vector<const PanelSpec*> panels;
    for (const PanelSpec& p : kPanels)
        if (std::any_of(p.series.begin(), p.series.end(),
                        [&](const Series& s) { return columns.contains(s.column); }))
            panels.push_back(&p);

    const double left = 80, right = 150, top = 70, panel_h = 110, gap = 42, bottom = 60;
    const double width = 1000, plot_w = width - left - right;
    const double height = top + static_cast<double>(panels.size()) * (panel_h + gap) - gap + bottom;
    const double t_end = t.empty() ? 1 : std::max(t.back(), 1e-3);
    const double t_begin = t.empty() ? 0 : std::min(t.front(), t_end);
    auto x_of = [&](double s) { return left + (s - t_begin) / (t_end - t_begin) * plot_w; };
    const auto num = svg_number;

    std::string svg;
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    svg += svg_document_head(width, height, 12, title);
    add("<text x=\"" + num(width / 2) +
        "\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
        escape_xml(title) + "</text>");

    // The workload's window, marked across every panel.
    const nlohmann::json marks = timeline.value("marks", nlohmann::json::object());
    std::optional<double> start, end;
    if (marks.contains("workload_start") && marks["workload_start"].is_number())
        start = marks["workload_start"].get<double>();
    if (marks.contains("workload_end") && marks["workload_end"].is_number())
        end = marks["workload_end"].get<double>();
    const double panels_bottom = height - bottom;
    if (start && end)
        add("<rect class=\"window\" x=\"" + num(x_of(*start)) + "\" y=\"" + num(top) +
            "\" width=\"" + num(x_of(*end) - x_of(*start)) + "\" height=\"" +
            num(panels_bottom - top) + "\" fill=\"#f3f3f3\"/>");

    for (std::size_t p = 0; p < panels.size(); ++p) {
        const PanelSpec& spec = *panels[p];
        const double y0 = top + static_cast<double>(p) * (panel_h + gap);
        const double base = y0 + panel_h;
        std::vector<Values> values;
        for (const Series& s : spec.series)
            values.push_back(column_values(columns, s.column, t.size()));

        // The scale: the highest value (the highest stack when stacked).
        double y_max = 0;
        bool any = false;
        for (std::size_t i = 0; i < t.size(); ++i) {
            double stack = 0;
            for (const Values& v : values)
                if (v[i]) {
                    any = true;
                    stack = spec.stacked ? stack + *v[i] : std::max(stack, *v[i]);
                }
            y_max = std::max(y_max, stack);
        }
        double step = tick_step(std::max(y_max, 1e-9) * 1.05);
        double y_top = y_max > 0 ? std::ceil(y_max * 1.05 / step) * step : 1;
        double tick = y_max > 0 ? step : 0.25;
        // A busy machine is 100%, not a scale to 125 (a stack may round to 100.02).
        if (spec.percent && y_top > 100 && y_max <= 101) {
            y_top = 100;
            tick = 20;
        }
        auto y_of = [&](double v) { return base - v / y_top * panel_h; };

        std::string unit;
        if (units.contains(spec.series.front().column))
            unit = units[spec.series.front().column].get<std::string>();
        add("<g class=\"panel\" data-signal=\"" + std::string(spec.signal) + "\">");
        add("<text x=\"" + num(left) + "\" y=\"" + num(y0 - 8) + "\" font-weight=\"bold\">" +
            escape_xml(spec.title) + (unit.empty() ? "" : " (" + escape_xml(unit) + ")") +
            "</text>");
        for (double v = 0; v <= y_top + tick / 2; v += tick) {
            add("<line x1=\"" + num(left) + "\" y1=\"" + num(y_of(v)) + "\" x2=\"" +
                num(left + plot_w) + "\" y2=\"" + num(y_of(v)) + "\" stroke=\"#e0e0e0\"/>");
            add("<text x=\"" + num(left - 6) + "\" y=\"" + num(y_of(v) + 4) +
                "\" text-anchor=\"end\" font-size=\"10\">" + tick_label(v, tick) + "</text>");
        }

        std::vector<double> below(t.size(), 0);
        for (std::size_t s = 0; s < spec.series.size(); ++s) {
            const char* colour = kSvgPalette[s % std::size(kSvgPalette)];
            const Values& v = values[s];
            if (spec.stacked) {
                std::string upper, lower;
                for (std::size_t i = 0; i < t.size(); ++i) {
                    if (!v[i]) continue;
                    upper += point(x_of(t[i]), y_of(below[i] + *v[i]));
                    lower = point(x_of(t[i]), y_of(below[i])) + lower;
                    below[i] += *v[i];
                }
                if (!upper.empty())
                    add("<polygon points=\"" + upper + lower + "\" fill=\"" + colour +
                        "\" fill-opacity=\"0.85\" stroke=\"none\"/>");
            } else {
                // One polyline per unbroken run: a gap in the data stays a gap.
                std::string run;
                auto flush = [&] {
                    if (!run.empty())
                        add("<polyline points=\"" + run + "\" fill=\"none\" stroke=\"" + colour +
                            "\" stroke-width=\"1.5\"/>");
                    run.clear();
                };
                for (std::size_t i = 0; i < t.size(); ++i) {
                    if (v[i])
                        run += point(x_of(t[i]), y_of(*v[i]));
                    else
                        flush();
                }
                flush();
            }
            const double ly = y0 + 6 + 16 * static_cast<double>(s);
            add("<rect x=\"" + num(left + plot_w + 14) + "\" y=\"" + num(ly) +
                "\" width=\"12\" height=\"10\" fill=\"" + colour + "\"/>");
            add("<text x=\"" + num(left + plot_w + 32) + "\" y=\"" + num(ly + 9) +
                "\" font-size=\"11\">" + escape_xml(spec.series[s].label) + "</text>");
        }
        if (!any) {
            std::string why = "no data";
            if (spec.signal == std::string("psi") && timeline.contains("psi_reason"))
                why += ": " + timeline["psi_reason"].get<std::string>();
            if (spec.signal == std::string("disk") &&
                timeline.value("device", nlohmann::json()).is_object())
                why += ": " + timeline["device"].value("reason", std::string());
            add("<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(y0 + panel_h / 2) +
                "\" text-anchor=\"middle\" fill=\"#777777\">" + escape_xml(why) + "</text>");
        }
        add("<path d=\"M" + num(left) + " " + num(y0) + "V" + num(base) + "H" + num(left + plot_w) +
            "\" stroke=\"#000000\" fill=\"none\"/>");
        add("</g>");
    }

    for (auto [mark, label] : {std::pair{start, "workload start"}, {end, "workload end"}}) {
        if (!mark) continue;
        const double x = x_of(*mark);
        add("<line class=\"mark\" x1=\"" + num(x) + "\" y1=\"" + num(top - 24) + "\" x2=\"" +
            num(x) + "\" y2=\"" + num(panels_bottom) +
            "\" stroke=\"#333333\" stroke-dasharray=\"5 3\"/>");
        add("<text x=\"" + num(x) + "\" y=\"" + num(top - 28) +
            "\" text-anchor=\"middle\" font-size=\"11\">" + label + "</text>");
    }

    // The time axis under the last panel.
    const double t_step = tick_step(t_end - t_begin);
    for (double s = std::ceil(t_begin / t_step) * t_step; s <= t_end + t_step / 100; s += t_step) {
        add("<line x1=\"" + num(x_of(s)) + "\" y1=\"" + num(panels_bottom) + "\" x2=\"" +
            num(x_of(s)) + "\" y2=\"" + num(panels_bottom + 5) + "\" stroke=\"#000000\"/>");
        add("<text x=\"" + num(x_of(s)) + "\" y=\"" + num(panels_bottom + 18) +
            "\" text-anchor=\"middle\" font-size=\"10\">" + tick_label(s, t_step) + "</text>");
    }
    add("<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(panels_bottom + 40) +
        "\" text-anchor=\"middle\">time (s)</text>");
    add("</svg>");
    return svg;
}

std::string timeline_svg_side_by_side(
    const std::vector<std::pair<nlohmann::json, std::string>>& runs, const std::string& title) {
    if (runs.empty()) throw UsageError("timeline: no runs to draw");
    const auto num = svg_number;
    const double title_h = 40;
    // Appended piece by piece: GCC 12 -O3 warns on "literal" + a temporary.
    std::string body;
    double x = 0, height = 0;
    for (const auto& [timeline, column_title] : runs) {
        std::string svg = timeline_svg(timeline, column_title);
        svg.erase(0, svg.find("<svg"));  // the XML declaration goes once, outside
        // The picture's own size, to place the next one beside it.
        auto attribute = [&](const char* name) {
            const std::string key = std::string(" ") + name + "=\"";
            const auto at = svg.find(key) + key.size();
            return std::stod(svg.substr(at, svg.find('"', at) - at));
        };
        const double w = attribute("width"), h = attribute("height");
        body += "<svg x=\"";
        body += num(x);
        body += "\" y=\"";
        body += num(title_h);
        body += '"';
        body.append(svg, 4);
        x += w;
        height = std::max(height, h);
    }
    std::string out = svg_document_head(x, height + title_h, 12, title);
    out += "<text x=\"";
    out += num(x / 2);
    out += "\" y=\"28\" text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\">";
    out += escape_xml(title);
    out += "</text>\n";
    out += body;
    out += "</svg>\n";
    return out;
}

}  // namespace contest
