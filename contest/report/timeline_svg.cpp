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

void add_element(std::string& svg, const std::string& element) {
    svg += element + "\n";
}

// What the sampler recorded, as the drawing reads it.
struct TimelineData {
    std::vector<double> t;  // seconds
    const nlohmann::json* columns;
    nlohmann::json units;
    std::optional<double> start, end;  // the workload's window
};

std::optional<double> mark_at(const nlohmann::json& marks, const char* name) {
    if (marks.contains(name) && marks[name].is_number()) return marks[name].get<double>();
    return std::nullopt;
}

TimelineData read_timeline(const nlohmann::json& timeline) {
    const auto t_it = timeline.find("t_s");
    const auto c_it = timeline.find("columns");
    if (t_it == timeline.end() || !t_it->is_array() || c_it == timeline.end() || !c_it->is_object())
        throw UsageError("timeline: no \"t_s\" array or \"columns\" object");
    TimelineData data;
    for (const auto& v : *t_it) data.t.push_back(v.is_number() ? v.get<double>() : 0);
    data.columns = &*c_it;
    data.units = timeline.value("units", nlohmann::json::object());
    const nlohmann::json marks = timeline.value("marks", nlohmann::json::object());
    data.start = mark_at(marks, "workload_start");
    data.end = mark_at(marks, "workload_end");
    return data;
}

// A panel for each signal with at least one column recorded.
std::vector<const PanelSpec*> recorded_panels(const nlohmann::json& columns) {
    std::vector<const PanelSpec*> panels;
    for (const PanelSpec& p : kPanels)
        if (std::any_of(p.series.begin(), p.series.end(),
                        [&](const Series& s) { return columns.contains(s.column); }))
            panels.push_back(&p);
    return panels;
}

// Where the parts go: the margins, the panels down the page, and the time
// scale every panel shares.
struct TimelinePage {
    double left = 80, right = 150, top = 70, panel_h = 110, gap = 42, bottom = 60;
    double width = 1000, plot_w = width - left - right;
    double height = 0;
    double t_begin = 0, t_end = 1;

    TimelinePage(const std::vector<double>& t, std::size_t panels)
        : height(top + static_cast<double>(panels) * (panel_h + gap) - gap + bottom) {
        if (t.empty()) return;
        t_end = std::max(t.back(), 1e-3);
        t_begin = std::min(t.front(), t_end);
    }

    double x_of(double s) const { return left + (s - t_begin) / (t_end - t_begin) * plot_w; }
    double panel_top(std::size_t p) const { return top + static_cast<double>(p) * (panel_h + gap); }
    double panels_bottom() const { return height - bottom; }
};

// A panel's value axis: where it ends, its tick spacing, and whether any
// value was recorded at all.
struct PanelScale {
    double y_top;
    double tick;
    bool any;
};

// The highest value (the highest stack when stacked), rounded up to a tick.
PanelScale panel_scale(const PanelSpec& spec, const std::vector<Values>& values, std::size_t n) {
    double y_max = 0;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
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
    return {y_top, tick, any};
}

// One panel on the page: its edges and the y of a value on its scale.
struct PanelArea {
    const TimelinePage& page;
    double y0;    // the top edge
    double base;  // the bottom edge, where 0 is
    double y_top;

    double y_of(double v) const { return base - v / y_top * page.panel_h; }
};

// The title with the unit, and a grid line with its label at every tick.
void draw_panel_heading(std::string& svg, const PanelArea& area, const PanelSpec& spec,
                        const PanelScale& scale, const nlohmann::json& units) {
    const TimelinePage& page = area.page;
    const auto num = svg_number;
    std::string unit;
    const std::string& column = spec.series.front().column;
    if (units.is_object() && units.contains(column) && units[column].is_string())
        unit = units[column].get<std::string>();
    add_element(svg, "<text x=\"" + num(page.left) + "\" y=\"" + num(area.y0 - 8) +
                         "\" font-weight=\"bold\">" + escape_xml(spec.title) +
                         (unit.empty() ? "" : " (" + escape_xml(unit) + ")") + "</text>");
    for (double v = 0; v <= scale.y_top + scale.tick / 2; v += scale.tick) {
        add_element(svg, "<line x1=\"" + num(page.left) + "\" y1=\"" + num(area.y_of(v)) +
                             "\" x2=\"" + num(page.left + page.plot_w) + "\" y2=\"" +
                             num(area.y_of(v)) + "\" stroke=\"#e0e0e0\"/>");
        add_element(svg, "<text x=\"" + num(page.left - 6) + "\" y=\"" + num(area.y_of(v) + 4) +
                             "\" text-anchor=\"end\" font-size=\"10\">" +
                             tick_label(v, scale.tick) + "</text>");
    }
}

// A series as an area on top of those before it; `below` is their stack.
void draw_stacked_area(std::string& svg, const PanelArea& area, const std::vector<double>& t,
                       const Values& v, std::vector<double>& below, const char* colour) {
    std::string upper, lower;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!v[i]) continue;
        upper += point(area.page.x_of(t[i]), area.y_of(below[i] + *v[i]));
        lower = point(area.page.x_of(t[i]), area.y_of(below[i])) + lower;
        below[i] += *v[i];
    }
    if (!upper.empty())
        add_element(svg, "<polygon points=\"" + upper + lower + "\" fill=\"" + colour +
                             "\" fill-opacity=\"0.85\" stroke=\"none\"/>");
}

// One polyline per unbroken run: a gap in the data stays a gap.
void draw_lines(std::string& svg, const PanelArea& area, const std::vector<double>& t,
                const Values& v, const char* colour) {
    std::string run;
    auto flush = [&] {
        if (!run.empty())
            add_element(svg, "<polyline points=\"" + run + "\" fill=\"none\" stroke=\"" + colour +
                                 "\" stroke-width=\"1.5\"/>");
        run.clear();
    };
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (v[i])
            run += point(area.page.x_of(t[i]), area.y_of(*v[i]));
        else
            flush();
    }
    flush();
}

// The series' colour and label, the `index`th down the right margin.
void draw_legend_entry(std::string& svg, const PanelArea& area, std::size_t index,
                       const char* colour, const char* label) {
    const TimelinePage& page = area.page;
    const auto num = svg_number;
    const double ly = area.y0 + 6 + 16 * static_cast<double>(index);
    add_element(svg, "<rect x=\"" + num(page.left + page.plot_w + 14) + "\" y=\"" + num(ly) +
                         "\" width=\"12\" height=\"10\" fill=\"" + colour + "\"/>");
    add_element(svg, "<text x=\"" + num(page.left + page.plot_w + 32) + "\" y=\"" + num(ly + 9) +
                         "\" font-size=\"11\">" + escape_xml(label) + "</text>");
}

// An empty panel says why, when the sampler recorded the reason.
void draw_no_data(std::string& svg, const PanelArea& area, const PanelSpec& spec,
                  const nlohmann::json& timeline) {
    const TimelinePage& page = area.page;
    std::string why = "no data";
    if (spec.signal == std::string("psi") && timeline.contains("psi_reason"))
        why += ": " + timeline["psi_reason"].get<std::string>();
    if (spec.signal == std::string("disk") &&
        timeline.value("device", nlohmann::json()).is_object())
        why += ": " + timeline["device"].value("reason", std::string());
    add_element(svg, "<text x=\"" + svg_number(page.left + page.plot_w / 2) + "\" y=\"" +
                         svg_number(area.y0 + page.panel_h / 2) +
                         "\" text-anchor=\"middle\" fill=\"#777777\">" + escape_xml(why) +
                         "</text>");
}

// The `index`th panel: heading and grid, each series with its legend entry,
// the reason when there is no data, and the axes' corner.
void draw_panel(std::string& svg, const TimelinePage& page, std::size_t index,
                const PanelSpec& spec, const TimelineData& data, const nlohmann::json& timeline) {
    const auto& t = data.t;
    std::vector<Values> values;
    for (const Series& s : spec.series)
        values.push_back(column_values(*data.columns, s.column, t.size()));
    const PanelScale scale = panel_scale(spec, values, t.size());
    const double y0 = page.panel_top(index);
    const PanelArea area{page, y0, y0 + page.panel_h, scale.y_top};

    add_element(svg, "<g class=\"panel\" data-signal=\"" + std::string(spec.signal) + "\">");
    draw_panel_heading(svg, area, spec, scale, data.units);
    std::vector<double> below(t.size(), 0);
    for (std::size_t s = 0; s < spec.series.size(); ++s) {
        const char* colour = kSvgPalette[s % std::size(kSvgPalette)];
        if (spec.stacked)
            draw_stacked_area(svg, area, t, values[s], below, colour);
        else
            draw_lines(svg, area, t, values[s], colour);
        draw_legend_entry(svg, area, s, colour, spec.series[s].label);
    }
    if (!scale.any) draw_no_data(svg, area, spec, timeline);
    const auto num = svg_number;
    add_element(svg, "<path d=\"M" + num(page.left) + " " + num(y0) + "V" + num(area.base) + "H" +
                         num(page.left + page.plot_w) + "\" stroke=\"#000000\" fill=\"none\"/>");
    add_element(svg, "</g>");
}

// The workload's window, shaded across every panel.
void draw_window(std::string& svg, const TimelinePage& page, const TimelineData& data) {
    if (!data.start || !data.end) return;
    const auto num = svg_number;
    add_element(svg, "<rect class=\"window\" x=\"" + num(page.x_of(*data.start)) + "\" y=\"" +
                         num(page.top) + "\" width=\"" +
                         num(page.x_of(*data.end) - page.x_of(*data.start)) + "\" height=\"" +
                         num(page.panels_bottom() - page.top) + "\" fill=\"#f3f3f3\"/>");
}

// The workload's start and end, a dashed line each from above the first
// panel to below the last.
void draw_marks(std::string& svg, const TimelinePage& page, const TimelineData& data) {
    const auto num = svg_number;
    for (auto [mark, label] :
         {std::pair{data.start, "workload start"}, {data.end, "workload end"}}) {
        if (!mark) continue;
        const double x = page.x_of(*mark);
        add_element(svg, "<line class=\"mark\" x1=\"" + num(x) + "\" y1=\"" + num(page.top - 24) +
                             "\" x2=\"" + num(x) + "\" y2=\"" + num(page.panels_bottom()) +
                             "\" stroke=\"#333333\" stroke-dasharray=\"5 3\"/>");
        add_element(svg, "<text x=\"" + num(x) + "\" y=\"" + num(page.top - 28) +
                             "\" text-anchor=\"middle\" font-size=\"11\">" + label + "</text>");
    }
}

// The time axis under the last panel.
void draw_time_axis(std::string& svg, const TimelinePage& page) {
    const auto num = svg_number;
    const double bottom = page.panels_bottom();
    const double t_step = tick_step(page.t_end - page.t_begin);
    for (double s = std::ceil(page.t_begin / t_step) * t_step; s <= page.t_end + t_step / 100;
         s += t_step) {
        add_element(svg, "<line x1=\"" + num(page.x_of(s)) + "\" y1=\"" + num(bottom) + "\" x2=\"" +
                             num(page.x_of(s)) + "\" y2=\"" + num(bottom + 5) +
                             "\" stroke=\"#000000\"/>");
        add_element(svg, "<text x=\"" + num(page.x_of(s)) + "\" y=\"" + num(bottom + 18) +
                             "\" text-anchor=\"middle\" font-size=\"10\">" + tick_label(s, t_step) +
                             "</text>");
    }
    add_element(svg, "<text x=\"" + num(page.left + page.plot_w / 2) + "\" y=\"" +
                         num(bottom + 40) + "\" text-anchor=\"middle\">time (s)</text>");
}

}  // namespace

std::string timeline_svg(const nlohmann::json& timeline, const std::string& title) {
    const TimelineData data = read_timeline(timeline);
    const std::vector<const PanelSpec*> panels = recorded_panels(*data.columns);
    const TimelinePage page(data.t, panels.size());

    std::string svg = svg_document_head(page.width, page.height, 12, title);
    add_element(svg, "<text x=\"" + svg_number(page.width / 2) +
                         "\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" "
                         "font-weight=\"bold\">" +
                         escape_xml(title) + "</text>");
    draw_window(svg, page, data);
    for (std::size_t p = 0; p < panels.size(); ++p)
        draw_panel(svg, page, p, *panels[p], data, timeline);
    draw_marks(svg, page, data);
    draw_time_axis(svg, page);
    add_element(svg, "</svg>");
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
