#include "contest/report/plot_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "contest/report/formats.h"
#include "contest/report/svg_common.h"

namespace contest {

namespace {

const auto& kPalette = kSvgPalette;
// Where everything goes: the plot widens with the number of bars, so bars
// never get thin, and the y axis reaches past the tallest error bar.
struct Geometry {
    double left = 80, right = 30, top = 100, plot_h = 340;
    double bar_width = 0, plot_w = 0, slot = 0, bottom = 0, width = 0, height = 0;
    bool turn_load_names = false;
    double step = 0, y_top = 0;
    double y_of(double ratio) const { return top + plot_h * (1 - ratio / y_top); }
};

Geometry geometry_for(const ReportModel& model) {
    Geometry g;
    const std::size_t n_loads = std::max<std::size_t>(model.blocks.size(), 1);
    const std::size_t n_labels = std::max<std::size_t>(model.labels.size(), 1);
    g.bar_width = std::clamp(160.0 / static_cast<double>(n_labels), 14.0, 48.0);
    const double group_width = g.bar_width * static_cast<double>(n_labels) + 36;
    g.plot_w = std::max(560.0, group_width * static_cast<double>(n_loads));
    g.slot = g.plot_w / static_cast<double>(n_loads);
    // Long load names are turned when the groups are narrow, so eleven loads
    // still fit side by side; turned names need more room underneath.
    g.turn_load_names = g.slot < 110;
    g.bottom = g.turn_load_names ? 140 : 110;
    g.width = g.left + g.plot_w + g.right;
    g.height = g.top + g.plot_h + g.bottom;
    double y_max = 1.0;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.ratio) {
                const double ci = std::isfinite(cell.ratio_ci95_half) ? cell.ratio_ci95_half : 0;
                y_max = std::max(y_max, *cell.ratio + ci);
            }
    g.step = tick_step(y_max * 1.08);
    g.y_top = std::ceil(y_max * 1.08 / g.step) * g.step;
    return g;
}

// The document's head, title and legend (one swatch per label, in a row).
void add_heading(std::string& svg, const ReportModel& model, const Geometry& g) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    svg += svg_document_head(g.width, g.height, 13, "contest: Ratio per load and kernel");
    add("<text x=\"" + svg_number(g.width / 2) +
        "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">"
        "Compile time under load, relative to the kernel's own no_load</text>");
    double legend_x = g.left;
    for (std::size_t i = 0; i < model.labels.size(); ++i) {
        const std::string& label = model.labels[i].label;
        const std::string text = label + (label == model.baseline ? " (baseline)" : "");
        add("<rect x=\"" + svg_number(legend_x) + "\" y=\"48\" width=\"14\" height=\"14\" fill=\"" +
            kPalette[i % std::size(kPalette)] + "\"/>");
        add("<text x=\"" + svg_number(legend_x + 20) + "\" y=\"60\">" + escape_xml(text) +
            "</text>");
        legend_x += 40 + 7.5 * static_cast<double>(text.size());
    }
}

void add_grid(std::string& svg, const Geometry& g) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    for (double v = 0; v <= g.y_top + g.step / 2; v += g.step) {
        const double y = g.y_of(v);
        add("<line x1=\"" + svg_number(g.left) + "\" y1=\"" + svg_number(y) + "\" x2=\"" +
            svg_number(g.left + g.plot_w) + "\" y2=\"" + svg_number(y) + "\" stroke=\"#dddddd\"/>");
        add("<text x=\"" + svg_number(g.left - 8) + "\" y=\"" + svg_number(y + 4) +
            "\" text-anchor=\"end\">" + tick_label(v, g.step) + "</text>");
    }
    add("<line x1=\"" + svg_number(g.left) + "\" y1=\"" + svg_number(g.y_of(1)) + "\" x2=\"" +
        svg_number(g.left + g.plot_w) + "\" y2=\"" + svg_number(g.y_of(1)) +
        "\" stroke=\"#555555\" stroke-dasharray=\"6 4\"/>");
    add("<text transform=\"translate(24 " + svg_number(g.top + g.plot_h / 2) +
        ") rotate(-90)\" text-anchor=\"middle\">Ratio (Time / no_load Time)</text>");
}

// One label's bar under one load, its error bar and its value with the mark.
void add_bar(std::string& svg, const Cell& cell, const std::string& load, std::size_t colour,
             double x, const Geometry& g) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    const double cx = x + g.bar_width / 2;
    const double ratio = *cell.ratio;
    add("<rect x=\"" + svg_number(x + 1) + "\" y=\"" + svg_number(g.y_of(ratio)) + "\" width=\"" +
        svg_number(g.bar_width - 2) + "\" height=\"" + svg_number(g.y_of(0) - g.y_of(ratio)) +
        "\" fill=\"" + kPalette[colour % std::size(kPalette)] + "\"><title>" +
        escape_xml(cell.label + " under " + load + ": Ratio " + fixed(ratio, 2) + " over " +
                   std::to_string(cell.time.n) + " runs") +
        "</title></rect>");
    double mark_y = g.y_of(ratio);
    if (std::isfinite(cell.ratio_ci95_half) && cell.ratio_ci95_half > 0) {
        const double y_lo = g.y_of(std::max(0.0, ratio - cell.ratio_ci95_half));
        const double y_hi = g.y_of(ratio + cell.ratio_ci95_half);
        const double cap = std::min(6.0, g.bar_width / 3);
        add("<path d=\"M" + svg_number(cx) + " " + svg_number(y_lo) + "V" + svg_number(y_hi) + "M" +
            svg_number(cx - cap) + " " + svg_number(y_hi) + "H" + svg_number(cx + cap) + "M" +
            svg_number(cx - cap) + " " + svg_number(y_lo) + "H" + svg_number(cx + cap) +
            "\" stroke=\"#222222\" stroke-width=\"1.5\" fill=\"none\"/>");
        mark_y = y_hi;
    }
    std::string value = fixed(ratio, 2);
    if (const std::string mark = significance_mark(cell); !mark.empty())
        value += "<tspan font-size=\"14\" font-weight=\"bold\"> " + mark + "</tspan>";
    add("<text x=\"" + svg_number(cx) + "\" y=\"" + svg_number(mark_y - 5) +
        "\" text-anchor=\"middle\" font-size=\"11\">" + value + "</text>");
}

// A load's group of bars and its name underneath.
void add_group(std::string& svg, const ReportModel& model, std::size_t b, const Geometry& g) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    const auto& block = model.blocks[b];
    const double bars_w = g.bar_width * static_cast<double>(model.labels.size());
    const double group_x = g.left + g.slot * static_cast<double>(b) + (g.slot - bars_w) / 2;
    for (std::size_t i = 0; i < model.labels.size(); ++i) {
        const Cell* cell = model.find_cell(block.load, model.labels[i].label);
        const double x = group_x + g.bar_width * static_cast<double>(i);
        if (cell && cell->ratio)
            add_bar(svg, *cell, block.load, i, x, g);
        else if (cell)  // ran, but without a no_load to divide by
            add("<text x=\"" + svg_number(x + g.bar_width / 2) + "\" y=\"" +
                svg_number(g.y_of(0) - 6) +
                "\" text-anchor=\"middle\" font-size=\"10\" fill=\"#777777\">n/a</text>");
    }
    const double label_x = g.left + g.slot * (static_cast<double>(b) + 0.5);
    const double label_y = g.y_of(0) + 20;
    if (g.turn_load_names)
        add("<text transform=\"translate(" + svg_number(label_x) + " " + svg_number(label_y) +
            ") rotate(-30)\" text-anchor=\"end\">" + escape_xml(block.load) + "</text>");
    else
        add("<text x=\"" + svg_number(label_x) + "\" y=\"" + svg_number(label_y) +
            "\" text-anchor=\"middle\">" + escape_xml(block.load) + "</text>");
}

// The axes (on top of the grid) and the notes under the chart.
void add_axes_and_notes(std::string& svg, const ReportModel& model, const Geometry& g) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    add("<path d=\"M" + svg_number(g.left) + " " + svg_number(g.top) + "V" + svg_number(g.y_of(0)) +
        "H" + svg_number(g.left + g.plot_w) +
        "\" stroke=\"#000000\" stroke-width=\"1.5\" fill=\"none\"/>");
    add("<text x=\"" + svg_number(g.left + g.plot_w / 2) + "\" y=\"" +
        svg_number(g.y_of(0) + (g.turn_load_names ? 84 : 46)) +
        "\" text-anchor=\"middle\">Load</text>");
    // Two short lines rather than one that runs off a narrow chart.
    std::vector<std::string> notes = {
        "Error bars: 95% confidence interval of the Ratio (paired by round: from the per-round "
        "log-ratios; unpaired: Student t, both means); no_load is 1 by definition."};
    if (const auto legend = significance_legend(model); !legend.empty()) notes.push_back(legend);
    for (std::size_t i = 0; i < notes.size(); ++i)
        add("<text x=\"" + svg_number(g.left) + "\" y=\"" +
            svg_number(g.height - 14 - 16 * static_cast<double>(notes.size() - 1 - i)) +
            "\" font-size=\"11\" fill=\"#444444\">" + escape_xml(notes[i]) + "</text>");
}

}  // namespace

std::string plot_svg(const ReportModel& model) {
    const Geometry g = geometry_for(model);
    std::string svg;
    add_heading(svg, model, g);
    add_grid(svg, g);
    for (std::size_t b = 0; b < model.blocks.size(); ++b) add_group(svg, model, b, g);
    add_axes_and_notes(svg, model, g);
    svg += "</svg>\n";
    return svg;
}

}  // namespace contest
