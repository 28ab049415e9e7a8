#include "contest/report/trend_page.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "contest/analysis/stats.h"
#include "contest/report/formats.h"
#include "contest/report/html_page.h"
#include "contest/report/svg_common.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

const char* const kRunColour = kSvgPalette[0];
const char* const kChangeColour = kSvgPalette[3];
// A kernel's name under the axis: longer ones are cut (the whole name is
// in the hover of its column).
constexpr std::size_t kAxisNameChars = 24;

constexpr const char* kStyle =
    R"(figure{margin:1.5em 0}figcaption{margin-bottom:.3em}
.change{color:#D55E00}nav li{margin:.1em 0}
table.alerts{border-collapse:collapse}table.alerts td,table.alerts th{padding:.15em .6em;
text-align:left;border-bottom:1px solid #ddd}tr.alert td{background:#f3f3f3;font-weight:bold}
details{margin:.4em 0}summary{cursor:pointer}
)";

// A point's runs as the chart draws them; n is 0 for a kernel without runs.
stats::Summary summary_of(const TrendPoint& p) {
    return stats::summarize(p.values);
}

std::string axis_name(const std::string& kernel) {
    if (kernel.size() <= kAxisNameChars) return kernel;
    return kernel.substr(0, kAxisNameChars - 1) + "\u2026";
}

// Where everything of one chart goes: a slot per kernel, wide when there
// are few, at least 4 px when there are hundreds (then only every so many
// kernels is named under the axis).
struct Chart {
    double left = 78, right = 30, top = 46, plot_h = 260, bottom = 0;
    double plot_w = 0, slot = 0, width = 0, height = 0;
    double y_lo = 0, y_hi = 1, step = 1;
    std::size_t name_every = 1;
    double x_of(std::size_t i) const { return left + slot * (static_cast<double>(i) + 0.5); }
    double boundary(std::size_t i) const { return left + slot * static_cast<double>(i); }
    double y_of(double v) const { return top + plot_h * (1 - (v - y_lo) / (y_hi - y_lo)); }
    double axis_y() const { return top + plot_h; }
};

Chart chart_for(const TrendSeries& s) {
    Chart c;
    const std::size_t n = std::max<std::size_t>(s.points.size(), 1);
    c.plot_w = std::clamp(36.0 * static_cast<double>(n), 640.0, 1400.0);
    c.slot = c.plot_w / static_cast<double>(n);
    c.name_every = static_cast<std::size_t>(std::ceil(16 / c.slot));
    std::size_t longest = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& p : s.points) {
        longest = std::max(longest, axis_name(p.kernel).size());
        for (double v : p.values)
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (hi - lo <= 0) {
        const double pad = hi != 0 ? std::fabs(hi) * 0.05 : 1;
        lo -= pad;
        hi += pad;
    }
    // A little room above and below, so no dot sits on the axis (none below
    // 0 for figures that are never negative).
    const double room = (hi - lo) * 0.04;
    lo = lo >= 0 ? std::max(0.0, lo - room) : lo - room;
    hi += room;
    c.step = tick_step(hi - lo);
    c.y_lo = std::floor(lo / c.step) * c.step;
    c.y_hi = std::ceil(hi / c.step) * c.step;
    // Names are turned 40 degrees: their length's sine under the axis.
    c.bottom = 46 + 6.5 * 0.65 * static_cast<double>(std::min(longest, kAxisNameChars));
    c.width = c.left + c.plot_w + c.right;
    c.height = c.top + c.plot_h + c.bottom;
    return c;
}

std::string labels_text(const TrendPoint& p) {
    return p.labels.empty() ? "labels: none" : "labels: " + join(p.labels, ", ");
}

void add_grid(std::string& svg, const TrendSeries& s, const Chart& c) {
    for (double v = c.y_lo; v <= c.y_hi + c.step / 2; v += c.step) {
        const std::string y = svg_number(c.y_of(v));
        svg += "<line x1=\"" + svg_number(c.left) + "\" y1=\"" + y + "\" x2=\"" +
               svg_number(c.left + c.plot_w) + "\" y2=\"" + y + "\" stroke=\"#dddddd\"/>\n";
        svg += "<text x=\"" + svg_number(c.left - 8) + "\" y=\"" + svg_number(c.y_of(v) + 4) +
               "\" text-anchor=\"end\">" + tick_label(v, c.step) + "</text>\n";
    }
    svg += "<text transform=\"translate(20 " + svg_number(c.top + c.plot_h / 2) +
           ") rotate(-90)\" text-anchor=\"middle\">" + escape_html(s.measure) + "</text>\n";
}

// Behind everything, a column per kernel whose hover says the kernel, its
// labels and its runs' median and range.
void add_columns(std::string& svg, const TrendSeries& s, const Chart& c) {
    svg += "<g class=\"kernels\" fill=\"#000000\" fill-opacity=\"0\">\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrendPoint& p = s.points[i];
        const stats::Summary sum = summary_of(p);
        std::string hover = p.kernel + " (kernel " + std::to_string(i + 1) + " of " +
                            std::to_string(s.points.size()) + ")\n" + labels_text(p) + "\n";
        hover += sum.n == 0 ? std::string("no runs")
                            : std::to_string(sum.n) + " run(s): median " + four_digits(sum.median) +
                                  ", min " + four_digits(sum.min) + ", max " + four_digits(sum.max);
        svg += "<rect x=\"" + svg_number(c.boundary(i)) + "\" y=\"" + svg_number(c.top) +
               "\" width=\"" + svg_number(c.slot) + "\" height=\"" + svg_number(c.plot_h) +
               "\"><title>" + escape_html(hover) + "</title></rect>\n";
    }
    svg += "</g>\n";
}

// The band of each kernel's min to max, and the line through the medians.
void add_band_and_medians(std::string& svg, const TrendSeries& s, const Chart& c) {
    std::string upper, lower, medians;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const stats::Summary sum = summary_of(s.points[i]);
        if (sum.n == 0) continue;
        const std::string x = svg_number(c.x_of(i));
        upper += (upper.empty() ? "M" : "L") + x + " " + svg_number(c.y_of(sum.max));
        lower = "L" + x + " " + svg_number(c.y_of(sum.min)) + lower;
        medians += (medians.empty() ? "M" : "L") + x + " " + svg_number(c.y_of(sum.median));
    }
    if (upper.empty()) return;
    svg += "<path class=\"band\" d=\"" + upper + lower + "Z\" fill=\"" + kRunColour +
           "\" fill-opacity=\"0.13\" stroke=\"none\"/>\n";
    svg += "<path class=\"medians\" d=\"" + medians + "\" fill=\"none\" stroke=\"" + kRunColour +
           "\" stroke-width=\"2\"/>\n";
}

// Every run a dot, a kernel's runs spread a little across its slot; the
// hover says the kernel, its labels and the run's figure.
void add_runs(std::string& svg, const TrendSeries& s, const Chart& c) {
    svg += std::string("<g class=\"runs\" fill=\"") + kRunColour + "\" fill-opacity=\"0.7\">\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrendPoint& p = s.points[i];
        const std::size_t n = p.values.size();
        const double spread = n > 1 ? std::min(c.slot * 0.5, 3.0 * static_cast<double>(n - 1)) : 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (!std::isfinite(p.values[j])) continue;
            const double dx =
                n > 1 ? (static_cast<double>(j) / static_cast<double>(n - 1) - 0.5) * spread : 0;
            svg += "<circle cx=\"" + svg_number(c.x_of(i) + dx) + "\" cy=\"" +
                   svg_number(c.y_of(p.values[j])) + "\" r=\"3\"><title>" +
                   escape_html(p.kernel + "\n" + labels_text(p) + "\nrun " + std::to_string(j + 1) +
                               " of " + std::to_string(n) + ": " + four_digits(p.values[j]) + " " +
                               s.measure) +
                   "</title></circle>\n";
        }
    }
    svg += "</g>\n";
}

// Each segment between changes at its level (the mean of its kernels'
// medians, on the log scale where every median is above 0, as the changes
// are found): the step a change is.
void add_steps(std::string& svg, const TrendSeries& s, const Chart& c) {
    if (s.changes.empty()) return;
    std::vector<std::size_t> bounds = {0};
    for (const auto& ch : s.changes)
        if (ch.index > bounds.back() && ch.index < s.points.size()) bounds.push_back(ch.index);
    bounds.push_back(s.points.size());
    std::string d;
    for (std::size_t b = 0; b + 1 < bounds.size(); ++b) {
        std::vector<double> medians;
        for (std::size_t i = bounds[b]; i < bounds[b + 1]; ++i)
            if (const auto sum = summary_of(s.points[i]); sum.n) medians.push_back(sum.median);
        if (medians.empty()) continue;
        const bool logs =
            std::all_of(medians.begin(), medians.end(), [](double m) { return m > 0; });
        double level = 0;
        for (double m : medians) level += logs ? std::log(m) : m;
        level /= static_cast<double>(medians.size());
        if (logs) level = std::exp(level);
        const std::string y = svg_number(c.y_of(level));
        d += (d.empty() ? "M" : "L") + svg_number(c.boundary(bounds[b])) + " " + y + "H" +
             svg_number(c.boundary(bounds[b + 1]));
    }
    svg += std::string("<path class=\"steps\" d=\"") + d + "\" fill=\"none\" stroke=\"" +
           kChangeColour + "\" stroke-width=\"1.5\" stroke-opacity=\"0.8\"/>\n";
}

std::string change_text(const ChangePoint& ch, const TrendPage& page) {
    return signed_percent(100 * ch.change) + " (" + number_text(100 * page.options.level) +
           "%: " + signed_percent(100 * ch.low) + " to " + signed_percent(100 * ch.high) + "), p " +
           format_p(ch.p);
}

// A change: a dashed line between the last kernel before it and the first
// after, its change above; its hover says the change, its interval, its p
// and the kernels either side. data-change-after names the last kernel
// before it, data-index the first after (from 0).
void add_changes(std::string& svg, const TrendSeries& s, const Chart& c, const TrendPage& page) {
    for (const auto& ch : s.changes) {
        if (ch.index == 0 || ch.index >= s.points.size()) continue;
        const TrendPoint& before = s.points[ch.index - 1];
        const TrendPoint& after = s.points[ch.index];
        const std::string x = svg_number(c.boundary(ch.index));
        svg += "<g class=\"change-mark\" data-index=\"" + std::to_string(ch.index) +
               "\" data-change-after=\"" + escape_html(before.kernel) + "\" data-change=\"" +
               signed_percent(100 * ch.change) + "\"><title>" +
               escape_html(change_text(ch, page) + "\nbetween " + before.kernel + " (the last of " +
                           std::to_string(ch.before) + ") and " + after.kernel + " (the first of " +
                           std::to_string(ch.after) + ")") +
               "</title>\n";
        svg += "<line x1=\"" + x + "\" y1=\"" + svg_number(c.top - 14) + "\" x2=\"" + x +
               "\" y2=\"" + svg_number(c.axis_y()) + "\" stroke=\"" + kChangeColour +
               "\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n";
        svg += "<text x=\"" + x + "\" y=\"" + svg_number(c.top - 20) +
               "\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"" + kChangeColour + "\">" +
               signed_percent(100 * ch.change) + "</text>\n</g>\n";
    }
}

// The axes, and every so many kernels' names turned under the x axis.
void add_axes(std::string& svg, const TrendSeries& s, const Chart& c) {
    svg += "<path d=\"M" + svg_number(c.left) + " " + svg_number(c.top) + "V" +
           svg_number(c.axis_y()) + "H" + svg_number(c.left + c.plot_w) +
           "\" stroke=\"#000000\" stroke-width=\"1.5\" fill=\"none\"/>\n";
    svg += "<g class=\"kernel-names\" font-size=\"11\">\n";
    for (std::size_t i = 0; i < s.points.size(); i += c.name_every)
        svg += "<text transform=\"translate(" + svg_number(c.x_of(i) + 4) + " " +
               svg_number(c.axis_y() + 14) + ") rotate(-40)\" text-anchor=\"end\">" +
               escape_html(axis_name(s.points[i].kernel)) + "</text>\n";
    svg += "</g>\n<text x=\"" + svg_number(c.left + c.plot_w / 2) + "\" y=\"" +
           svg_number(c.height - 8) + "\" text-anchor=\"middle\">" +
           escape_html("kernels, in " + s.order) + "</text>\n";
}

// every_run: a dot a run; else (a folded series without a change) the
// kernels' medians and bands only, each kernel's runs in its column's hover.
std::string chart_svg(const TrendSeries& s, const TrendPage& page, bool every_run) {
    const Chart c = chart_for(s);
    std::string svg = svg_document_head(c.width, c.height, 12,
                                        valid_utf8(s.name + ": " + s.workload + ", " + s.load));
    add_grid(svg, s, c);
    add_columns(svg, s, c);
    add_band_and_medians(svg, s, c);
    add_steps(svg, s, c);
    add_changes(svg, s, c, page);
    if (every_run) add_runs(svg, s, c);
    add_axes(svg, s, c);
    return inline_svg(svg + "</svg>\n");
}

std::size_t runs_of(const TrendSeries& s) {
    std::size_t n = 0;
    for (const auto& p : s.points) n += p.values.size();
    return n;
}

std::string series_figure(const TrendSeries& s, std::size_t number, const TrendPage& page,
                          bool every_run = true) {
    std::string out =
        "<figure class=\"series\" id=\"series-" + std::to_string(number) + "\" data-series=\"" +
        escape_html(s.name) + "\">\n<figcaption><b>" + escape_html(s.name) + "</b>: " +
        escape_html(s.workload + ", " + s.load + "; " + std::to_string(s.points.size()) +
                    " kernels in " + s.order + ", " + std::to_string(runs_of(s)) + " runs") +
        ". ";
    std::vector<std::string> changes;
    for (std::size_t i = 0; i < s.changes.size(); ++i) {
        const ChangePoint& ch = s.changes[i];
        if (ch.index > 0 && ch.index < s.points.size())
            changes.push_back((i < s.change_states.size() ? s.change_states[i] + ": " : "") +
                              change_text(ch, page) + " between " + s.points[ch.index - 1].kernel +
                              " and " + s.points[ch.index].kernel);
    }
    out += changes.empty()
               ? std::string("No change.")
               : "<span class=\"change\">" +
                     escape_html(std::string(changes.size() == 1 ? "Change: " : "Changes: ") +
                                 join(changes, "; ")) +
                     "</span>";
    if (!every_run) out += " (Each kernel's runs in its hover.)";
    return out + "</figcaption>\n" + chart_svg(s, page, every_run) + "</figure>\n";
}

// The machines, and each machine's measures, in the order the series first
// name them.
template <class Key>
std::vector<std::string> in_first_order(const std::vector<const TrendSeries*>& series, Key key) {
    std::vector<std::string> out;
    for (const TrendSeries* s : series)
        if (std::find(out.begin(), out.end(), key(*s)) == out.end()) out.push_back(key(*s));
    return out;
}

std::string how_to_read(const TrendPage& page) {
    const ChangePointOptions& o = page.options;
    return "Each chart is one series: one machine, workload, load and measure over the kernels it "
           "ran on, in kernel order. Every run is a dot; the line joins each kernel's median, the "
           "band spans its runs' minimum to maximum. A dashed line is a change point, where the "
           "series moved and stayed, with the change it made (the stepped line: the level of "
           "each stretch between changes), found as contest history changes finds them: alpha " +
           number_text(o.alpha) + " (corrected for the splits tried), at least " +
           std::to_string(o.min_segment) + " kernels a side, at least " +
           number_text(100 * o.min_change) +
           "%. Hover over a dot, a kernel or a change for its figures.";
}

}  // namespace

bool trend_measure_first(const std::string& measure) {
    return measure == "wall_s" || measure == "load_units_per_s";
}

namespace {

// The page's first section: every alert, its changes each a row with its
// id, state and a link to its chart.
std::string alerts_section(const TrendPage& page, const std::vector<std::string>& anchors) {
    std::string out = "<section id=\"changes\">\n<h2>Changes</h2>\n";
    if (page.alerts.empty())
        return out + html_paragraph("No change in these series.") + "</section>\n";
    std::size_t changes = 0;
    for (const auto& a : page.alerts) changes += a.changes.size();
    out += html_paragraph(
        std::to_string(changes) + " change(s) in " + std::to_string(page.alerts.size()) +
        " alert(s): the changes of one kernel pair over measures, loads and hosts are one alert, "
        "the change that moved most first. contest history triage ID --status S sets a change's "
        "state.");
    out +=
        "<table class=\"alerts\">\n<tr><th>change</th><th>state</th><th>series</th><th>host"
        "</th><th>moved</th><th>triage</th></tr>\n";
    std::size_t number = 0;
    for (const auto& a : page.alerts) {
        out += "<tr class=\"alert\"><td colspan=\"6\">alert " + std::to_string(++number) + ", " +
               escape_html(a.state) + ": " + escape_html(a.before) + " to " + escape_html(a.after) +
               "</td></tr>\n";
        for (const auto& c : a.changes) {
            const auto at = std::find_if(page.series.begin(), page.series.end(),
                                         [&](const TrendSeries& s) { return s.name == c.series; });
            const std::string series =
                at == page.series.end()
                    ? escape_html(c.series)
                    : "<a href=\"#" + anchors[static_cast<std::size_t>(at - page.series.begin())] +
                          "\">" + escape_html(c.series) + "</a>";
            out += "<tr class=\"change-row\" data-change=\"" + std::to_string(c.id) +
                   "\" data-state=\"" + escape_html(c.state) + "\"><td>#" + std::to_string(c.id) +
                   "</td><td>" + escape_html(c.state) + "</td><td>" + series + "</td><td>" +
                   escape_html(c.host) + "</td><td>" + signed_percent(100 * c.change) +
                   "</td><td>" + escape_html(c.triage) + "</td></tr>\n";
        }
    }
    return out + "</table>\n</section>\n";
}

}  // namespace

std::string trend_page_html(const TrendPage& page) {
    std::vector<const TrendSeries*> all;
    for (const auto& s : page.series) all.push_back(&s);
    const auto machines = in_first_order(all, [](const TrendSeries& s) { return s.machine; });
    std::string out = html_page_head(
        "contest: the history of " + std::to_string(page.series.size()) + " series", kStyle);
    out += html_paragraph("contest " + std::string(kVersion) + "; " + page.database + "; " +
                          std::to_string(machines.size()) + " machine(s)");
    if (page.series.empty())
        return out +
               html_paragraph("No series in " + page.database +
                              ": nothing to draw (contest history import puts result "
                              "files in).") +
               kHtmlPageEnd;
    // Each chart's anchor by its place in page.series, whatever order it is drawn in.
    std::vector<std::string> anchors;
    for (std::size_t i = 0; i < page.series.size(); ++i)
        anchors.push_back("series-" + std::to_string(i + 1));
    out += alerts_section(page, anchors);
    out += html_paragraph(how_to_read(page));
    if (machines.size() > 1) {
        out += "<nav><ul>\n";
        for (std::size_t m = 0; m < machines.size(); ++m)
            out += "<li><a href=\"#machine-" + std::to_string(m + 1) + "\">" +
                   escape_html(machines[m]) + "</a></li>\n";
        out += "</ul></nav>\n";
    }
    const auto figure = [&](const TrendSeries* s, bool every_run = true) {
        return series_figure(*s, static_cast<std::size_t>(s - page.series.data()) + 1, page,
                             every_run);
    };
    for (std::size_t m = 0; m < machines.size(); ++m) {
        out += "<section class=\"machine\" id=\"machine-" + std::to_string(m + 1) + "\">\n<h2>" +
               escape_html(machines[m]) + "</h2>\n";
        std::vector<const TrendSeries*> on;
        std::copy_if(all.begin(), all.end(), std::back_inserter(on),
                     [&](const TrendSeries* s) { return s->machine == machines[m]; });
        const auto measures = in_first_order(on, [](const TrendSeries& s) { return s.measure; });
        for (const auto& measure : measures) {
            if (!trend_measure_first(measure)) continue;
            out += "<h3>" + escape_html(measure) + "</h3>\n";
            for (const TrendSeries* s : on)
                if (s->measure == measure) out += figure(s);
        }
        // The rest a click away: a fold per measure, saying how many of its
        // series moved.
        for (const auto& measure : measures) {
            if (trend_measure_first(measure)) continue;
            std::size_t series = 0, changed = 0;
            for (const TrendSeries* s : on)
                if (s->measure == measure) ++series, changed += !s->changes.empty();
            out += "<details class=\"measure\" data-measure=\"" + escape_html(measure) +
                   "\"><summary>" +
                   escape_html(measure + ": " + std::to_string(series) + " series, " +
                               std::to_string(changed) + " with a change") +
                   "</summary>\n";
            // A folded series without a change is drawn without its runs'
            // dots: most of a page's bytes are the dots' hovers.
            for (const TrendSeries* s : on)
                if (s->measure == measure) out += figure(s, !s->changes.empty());
            out += "</details>\n";
        }
        out += "</section>\n";
    }
    return out + kHtmlPageEnd;
}

}  // namespace contest
