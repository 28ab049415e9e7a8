#include "contest/report/latency_plot.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "contest/report/formats.h"
#include "contest/report/svg_common.h"

namespace contest {

namespace {

constexpr double kBinsPerDecade = 10;
constexpr double kMinShare = 1e-6;  // the y axis's floor: one sample in a million
constexpr double kPanelW = 620, kPanelH = 220, kLeft = 80, kTop = 90, kGap = 70;

// A label's samples in log-spaced bins of latency (us): (bin centre, share).
std::vector<std::pair<double, double>> log_binned(const LatencyRow& row) {
    std::vector<std::pair<double, double>> out;
    std::uint64_t total = 0;
    for (const auto& b : row.bins) total += b.count;
    if (total == 0) return out;
    std::vector<std::uint64_t> counts;
    for (const auto& b : row.bins) {
        const double us = std::max(1.0, static_cast<double>(b.lower_ns) / 1000);
        const auto k = static_cast<std::size_t>(std::floor(std::log10(us) * kBinsPerDecade));
        if (counts.size() <= k) counts.resize(k + 1, 0);
        counts[k] += b.count;
    }
    for (std::size_t k = 0; k < counts.size(); ++k)
        if (counts[k])
            out.push_back({std::pow(10, (static_cast<double>(k) + 0.5) / kBinsPerDecade),
                           static_cast<double>(counts[k]) / static_cast<double>(total)});
    return out;
}

struct Panel {
    const LoadBlock* block;
    std::string probe;
};

void add_panel(std::string& svg, const ReportModel& model, const Panel& p, double top) {
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    double max_us = 10;
    for (const auto& row : p.block->latency)
        if (row.probe == p.probe && std::isfinite(row.max_ns))
            max_us = std::max(max_us, row.max_ns / 1000);
    const double decades = std::ceil(std::log10(max_us));
    const double floor_decades = -std::log10(kMinShare);
    auto x_of = [&](double us) {
        return kLeft + kPanelW * std::log10(std::max(us, 1.0)) / decades;
    };
    auto y_of = [&](double share) {
        return top + kPanelH * (-std::log10(std::max(share, kMinShare))) / floor_decades;
    };
    add("<text x=\"" + svg_number(kLeft) + "\" y=\"" + svg_number(top - 10) +
        "\" font-weight=\"bold\">" + escape_xml(p.block->load + ": " + p.probe) + "</text>");
    for (double d = 0; d <= decades; ++d) {
        const double x = x_of(std::pow(10, d));
        add("<line x1=\"" + svg_number(x) + "\" y1=\"" + svg_number(top) + "\" x2=\"" +
            svg_number(x) + "\" y2=\"" + svg_number(top + kPanelH) + "\" stroke=\"#dddddd\"/>");
        add("<text x=\"" + svg_number(x) + "\" y=\"" + svg_number(top + kPanelH + 16) +
            "\" text-anchor=\"middle\" font-size=\"11\">" + fixed(std::pow(10, d), 0) + "</text>");
    }
    for (double d = 0; d <= floor_decades; d += 2) {
        const double y = y_of(std::pow(10, -d));
        add("<line x1=\"" + svg_number(kLeft) + "\" y1=\"" + svg_number(y) + "\" x2=\"" +
            svg_number(kLeft + kPanelW) + "\" y2=\"" + svg_number(y) + "\" stroke=\"#dddddd\"/>");
        add("<text x=\"" + svg_number(kLeft - 6) + "\" y=\"" + svg_number(y + 4) +
            "\" text-anchor=\"end\" font-size=\"11\">1e-" + fixed(d, 0) + "</text>");
    }
    for (std::size_t i = 0; i < model.labels.size(); ++i)
        for (const auto& row : p.block->latency) {
            if (row.probe != p.probe || row.label != model.labels[i].label) continue;
            std::string path;
            for (const auto& [us, share] : log_binned(row)) {
                path += path.empty() ? 'M' : 'L';
                path += svg_number(x_of(us));
                path += ' ';
                path += svg_number(y_of(share));
            }
            add("<path d=\"" + path + "\" stroke=\"" + kSvgPalette[i % std::size(kSvgPalette)] +
                "\" stroke-width=\"2\" fill=\"none\"><title>" +
                escape_xml(row.label + ": p99 " + fixed(row.p99_ns / 1000, 1) + " us, max " +
                           fixed(row.max_ns / 1000, 1) + " us") +
                "</title></path>");
        }
    add("<path d=\"M" + svg_number(kLeft) + " " + svg_number(top) + "V" +
        svg_number(top + kPanelH) + "H" + svg_number(kLeft + kPanelW) +
        "\" stroke=\"#000000\" fill=\"none\"/>");
    add("<text x=\"" + svg_number(kLeft + kPanelW / 2) + "\" y=\"" +
        svg_number(top + kPanelH + 34) +
        "\" text-anchor=\"middle\" font-size=\"12\">wake-up latency (us, log)</text>");
}

}  // namespace

std::string latency_plot_svg(const ReportModel& model) {
    std::vector<Panel> panels;
    for (const auto& block : model.blocks)
        for (std::size_t i = 0; i < block.latency.size(); ++i)
            if (i == 0 || block.latency[i - 1].probe != block.latency[i].probe)
                panels.push_back({&block, block.latency[i].probe});
    if (panels.empty()) return "";
    const double width = kLeft + kPanelW + 40;
    const double height = kTop + static_cast<double>(panels.size()) * (kPanelH + kGap) + 20;
    std::string svg;
    auto add = [&](const std::string& s) { svg += s + "\n"; };
    svg +=
        svg_document_head(width, height, 13, "contest: latency distribution per load and kernel");
    add("<text x=\"" + svg_number(width / 2) +
        "\" y=\"26\" text-anchor=\"middle\" font-size=\"17\" font-weight=\"bold\">"
        "Wake-up latency: share of samples (log) per latency (log)</text>");
    double legend_x = kLeft;
    for (std::size_t i = 0; i < model.labels.size(); ++i) {
        const std::string& label = model.labels[i].label;
        add("<rect x=\"" + svg_number(legend_x) + "\" y=\"42\" width=\"14\" height=\"14\" fill=\"" +
            kSvgPalette[i % std::size(kSvgPalette)] + "\"/>");
        add("<text x=\"" + svg_number(legend_x + 20) + "\" y=\"54\">" + escape_xml(label) +
            "</text>");
        legend_x += 40 + 7.5 * static_cast<double>(label.size());
    }
    for (std::size_t k = 0; k < panels.size(); ++k)
        add_panel(svg, model, panels[k], kTop + static_cast<double>(k) * (kPanelH + kGap));
    svg += "</svg>\n";
    return svg;
}

}  // namespace contest
