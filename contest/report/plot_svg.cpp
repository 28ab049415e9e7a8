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
std::string num(double v) {
    return svg_number(v);
}

}  // namespace

std::string plot_svg(const ReportModel& model) {
    const std::size_t n_loads = std::max<std::size_t>(model.blocks.size(), 1);
    const std::size_t n_labels = std::max<std::size_t>(model.labels.size(), 1);

    // Geometry: the plot widens with the number of bars, so bars never get thin.
    const double left = 80, right = 30, top = 100;
    const double bar_width = std::clamp(160.0 / static_cast<double>(n_labels), 14.0, 48.0);
    const double group_width = bar_width * static_cast<double>(n_labels) + 36;
    const double plot_w = std::max(560.0, group_width * static_cast<double>(n_loads));
    const double slot = plot_w / static_cast<double>(n_loads);
    // Long load names are turned when the groups are narrow, so eleven loads
    // still fit side by side; turned names need more room underneath.
    const bool turn_load_names = slot < 110;
    const double bottom = turn_load_names ? 140 : 110;
    const double plot_h = 340;
    const double width = left + plot_w + right, height = top + plot_h + bottom;

    double y_max = 1.0;
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.ratio) {
                const double ci = std::isfinite(cell.ratio_ci95_half) ? cell.ratio_ci95_half : 0;
                y_max = std::max(y_max, *cell.ratio + ci);
            }
    const double step = tick_step(y_max * 1.08);
    const double y_top = std::ceil(y_max * 1.08 / step) * step;
    auto y_of = [&](double ratio) { return top + plot_h * (1 - ratio / y_top); };

    std::string svg;
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    add("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" +
        num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
        "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">");
    add("<title>contest: Ratio per load and kernel</title>");
    add("<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) +
        "\" fill=\"#ffffff\"/>");
    add("<text x=\"" + num(width / 2) +
        "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">"
        "Compile time under load, relative to the kernel's own no_load</text>");

    // Legend: one swatch per label, in a row under the title.
    double legend_x = left;
    for (std::size_t i = 0; i < model.labels.size(); ++i) {
        const std::string& label = model.labels[i].label;
        const std::string text = label + (label == model.baseline ? " (baseline)" : "");
        add("<rect x=\"" + num(legend_x) + "\" y=\"48\" width=\"14\" height=\"14\" fill=\"" +
            kPalette[i % std::size(kPalette)] + "\"/>");
        add("<text x=\"" + num(legend_x + 20) + "\" y=\"60\">" + escape_xml(text) + "</text>");
        legend_x += 40 + 7.5 * static_cast<double>(text.size());
    }

    // Grid and y axis.
    for (double v = 0; v <= y_top + step / 2; v += step) {
        const double y = y_of(v);
        add("<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(left + plot_w) +
            "\" y2=\"" + num(y) + "\" stroke=\"#dddddd\"/>");
        add("<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" +
            tick_label(v, step) + "</text>");
    }
    add("<line x1=\"" + num(left) + "\" y1=\"" + num(y_of(1)) + "\" x2=\"" + num(left + plot_w) +
        "\" y2=\"" + num(y_of(1)) + "\" stroke=\"#555555\" stroke-dasharray=\"6 4\"/>");
    add("<text transform=\"translate(24 " + num(top + plot_h / 2) +
        ") rotate(-90)\" text-anchor=\"middle\">Ratio (Time / no_load Time)</text>");

    // Bars, error bars and the significance marks, group by group.
    const double bars_w = bar_width * static_cast<double>(n_labels);
    for (std::size_t b = 0; b < model.blocks.size(); ++b) {
        const auto& block = model.blocks[b];
        const double group_x = left + slot * static_cast<double>(b) + (slot - bars_w) / 2;
        for (std::size_t i = 0; i < model.labels.size(); ++i) {
            const Cell* cell = model.find_cell(block.load, model.labels[i].label);
            const double x = group_x + bar_width * static_cast<double>(i);
            const double cx = x + bar_width / 2;
            if (!cell || !cell->ratio) {
                if (cell)  // ran, but without a no_load to divide by
                    add("<text x=\"" + num(cx) + "\" y=\"" + num(y_of(0) - 6) +
                        "\" text-anchor=\"middle\" font-size=\"10\" fill=\"#777777\">n/a</text>");
                continue;
            }
            const double ratio = *cell->ratio;
            add("<rect x=\"" + num(x + 1) + "\" y=\"" + num(y_of(ratio)) + "\" width=\"" +
                num(bar_width - 2) + "\" height=\"" + num(y_of(0) - y_of(ratio)) + "\" fill=\"" +
                kPalette[i % std::size(kPalette)] + "\"><title>" +
                escape_xml(cell->label + " under " + block.load + ": Ratio " + fixed(ratio, 2) +
                           " over " + std::to_string(cell->time.n) + " runs") +
                "</title></rect>");
            double mark_y = y_of(ratio);
            if (std::isfinite(cell->ratio_ci95_half) && cell->ratio_ci95_half > 0) {
                const double y_lo = y_of(std::max(0.0, ratio - cell->ratio_ci95_half));
                const double y_hi = y_of(ratio + cell->ratio_ci95_half);
                const double cap = std::min(6.0, bar_width / 3);
                add("<path d=\"M" + num(cx) + " " + num(y_lo) + "V" + num(y_hi) + "M" +
                    num(cx - cap) + " " + num(y_hi) + "H" + num(cx + cap) + "M" + num(cx - cap) +
                    " " + num(y_lo) + "H" + num(cx + cap) +
                    "\" stroke=\"#222222\" stroke-width=\"1.5\" fill=\"none\"/>");
                mark_y = y_hi;
            }
            // The value above the error bar, with its significance mark.
            std::string value = fixed(ratio, 2);
            if (const std::string mark = significance_mark(*cell); !mark.empty())
                value += "<tspan font-size=\"14\" font-weight=\"bold\"> " + mark + "</tspan>";
            add("<text x=\"" + num(cx) + "\" y=\"" + num(mark_y - 5) +
                "\" text-anchor=\"middle\" font-size=\"11\">" + value + "</text>");
        }
        const double label_x = left + slot * (static_cast<double>(b) + 0.5);
        const double label_y = y_of(0) + 20;
        if (turn_load_names)
            add("<text transform=\"translate(" + num(label_x) + " " + num(label_y) +
                ") rotate(-30)\" text-anchor=\"end\">" + escape_xml(block.load) + "</text>");
        else
            add("<text x=\"" + num(label_x) + "\" y=\"" + num(label_y) +
                "\" text-anchor=\"middle\">" + escape_xml(block.load) + "</text>");
    }

    // Axes on top of the grid.
    add("<path d=\"M" + num(left) + " " + num(top) + "V" + num(y_of(0)) + "H" + num(left + plot_w) +
        "\" stroke=\"#000000\" stroke-width=\"1.5\" fill=\"none\"/>");
    add("<text x=\"" + num(left + plot_w / 2) + "\" y=\"" +
        num(y_of(0) + (turn_load_names ? 84 : 46)) + "\" text-anchor=\"middle\">Load</text>");

    // Two short lines rather than one that runs off a narrow chart.
    std::vector<std::string> notes = {
        "Error bars: 95% confidence interval of the Ratio (Student t, both means); no_load is 1 "
        "by definition."};
    if (const auto legend = significance_legend(model); !legend.empty()) notes.push_back(legend);
    for (std::size_t i = 0; i < notes.size(); ++i)
        add("<text x=\"" + num(left) + "\" y=\"" +
            num(height - 14 - 16 * static_cast<double>(notes.size() - 1 - i)) +
            "\" font-size=\"11\" fill=\"#444444\">" + escape_xml(notes[i]) + "</text>");
    add("</svg>");
    return svg;
}

}  // namespace contest
