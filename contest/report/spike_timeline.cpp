#include "contest/report/spike_timeline.h"

#include <algorithm>
#include <map>
#include <utility>

#include "contest/report/formats.h"
#include "contest/report/svg_common.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace {

// A stretch this share of the spike or more gets a line of its own.
constexpr double kOwnLineShare = 0.02;
constexpr std::size_t kMostLines = 12;

std::string ms(double ns) {
    return fixed(ns / 1e6, 3) + " ms";
}

// What a stretch's owner is called: "dd pid 1234 (load)", "irq local_timer".
std::string owner(const SpikePart& p) {
    if (p.kind == "task")
        return p.name + " pid " + std::to_string(p.pid) +
               (p.task_class.empty() ? "" : " (" + p.task_class + ")");
    if (p.kind == "irq") return p.name.starts_with("irq ") ? p.name : "irq " + p.name;
    if (p.kind == "softirq") return "softirq " + p.name;
    if (p.kind == "more") return "(" + std::to_string(p.parts) + " more stretches, not kept)";
    return p.kind;
}

// The colour of what a stretch is: a task by its class, else by its kind.
const char* colour(const SpikePart& p) {
    static const std::map<std::string, const char*> by_class = {
        {"workload", kSvgPalette[0]},      {"load", kSvgPalette[3]},
        {"kernel thread", kSvgPalette[2]}, {"other", kSvgPalette[4]},
        {"contest", kSvgPalette[5]},       {"idle", "#bbbbbb"},
    };
    if (p.kind == "task") {
        const auto it = by_class.find(p.task_class);
        return it != by_class.end() ? it->second : kSvgPalette[4];
    }
    if (p.kind == "irq") return kSvgPalette[1];
    if (p.kind == "softirq") return kSvgPalette[6];
    if (p.kind == "timer expiry") return "#999999";
    if (p.kind == "more") return "#f2f2f2";
    return "#dddddd";  // unexplained
}

// The legend's name for a colour's stretches.
std::string category(const SpikePart& p) {
    if (p.kind == "task") return p.task_class.empty() ? "other" : p.task_class;
    return p.kind == "more" ? "not kept" : p.kind;
}

std::string heading(const LabelSpike& s) {
    return "worst spike: " + s.probe + ", " + s.label + ": " + ms(s.spike->late_ns) + " late, " +
           s.load + " run " + std::to_string(s.spike->run_index) +
           (s.spike->cpu >= 0 ? ", CPU " + std::to_string(s.spike->cpu) : "");
}

}  // namespace

std::vector<LabelSpike> worst_spikes(const ReportModel& model) {
    std::vector<LabelSpike> out;
    for (const auto& block : model.blocks)
        for (const auto& row : block.latency) {
            if (!row.worst_spike || row.worst_spike->timeline.empty()) continue;
            auto it = std::find_if(out.begin(), out.end(), [&](const LabelSpike& s) {
                return s.probe == row.probe && s.label == row.label;
            });
            if (it == out.end())
                out.push_back({row.probe, row.label, block.load, &*row.worst_spike});
            else if (row.worst_spike->late_ns > it->spike->late_ns)
                *it = {row.probe, row.label, block.load, &*row.worst_spike};
        }
    // The probe's rows together (in the order first met), then the labels as the rows have them.
    std::vector<std::string> probes;
    for (const auto& l : out)
        if (std::find(probes.begin(), probes.end(), l.probe) == probes.end())
            probes.push_back(l.probe);
    std::vector<LabelSpike> grouped;
    for (const auto& probe : probes)
        for (const auto& l : out)
            if (l.probe == probe) grouped.push_back(l);
    return grouped;
}

std::vector<std::string> spike_timeline_lines(const LabelSpike& s) {
    std::vector<std::string> lines = {heading(s) + ":"};
    const auto& parts = s.spike->timeline;
    auto line = [&](double at, double ns, const std::string& what) {
        lines.push_back(right_aligned("+" + ms(at), 12) + "  " + right_aligned(ms(ns), 12) + "  " +
                        what);
    };
    const double own = kOwnLineShare * s.spike->late_ns;
    std::size_t i = 0;
    while (i < parts.size()) {
        if (lines.size() == kMostLines) {  // the rest as one line
            double ns = 0;
            for (std::size_t j = i; j < parts.size(); ++j) ns += parts[j].ns;
            line(parts[i].at_ns, ns, "(" + std::to_string(parts.size() - i) + " more stretches)");
            break;
        }
        if (parts[i].ns >= own || parts[i].kind == "more") {
            line(parts[i].at_ns, parts[i].ns, owner(parts[i]));
            ++i;
            continue;
        }
        std::size_t j = i;
        double ns = 0;
        while (j < parts.size() && parts[j].ns < own && parts[j].kind != "more")
            ns += parts[j++].ns;
        line(parts[i].at_ns, ns,
             j - i == 1 ? owner(parts[i]) : "(" + std::to_string(j - i) + " shorter stretches)");
        i = j;
    }
    return lines;
}

std::string spike_timeline_svg(const LabelSpike& s) {
    constexpr double kWidth = 720, kLeft = 10, kRight = 10, kBarTop = 30, kBarHeight = 28;
    const double span = std::max(s.spike->late_ns, 1.0);
    const double plot = kWidth - kLeft - kRight;
    auto x = [&](double ns) { return kLeft + plot * std::clamp(ns / span, 0.0, 1.0); };
    // The legend: each category present once, in the order met.
    std::vector<std::pair<std::string, const char*>> legend;
    for (const auto& p : s.spike->timeline) {
        const std::string c = category(p);
        if (std::none_of(legend.begin(), legend.end(), [&](const auto& l) { return l.first == c; }))
            legend.emplace_back(c, colour(p));
    }
    const double height = kBarTop + kBarHeight + 34 + 18 * ((legend.size() + 3) / 4);
    std::string out = svg_document_head(kWidth, height, 12, heading(s));
    out += "<text x=\"" + svg_number(kLeft) + "\" y=\"18\">" + escape_xml(heading(s)) + "</text>\n";
    for (const auto& p : s.spike->timeline) {
        const double x0 = x(p.at_ns), x1 = x(p.at_ns + p.ns);
        out += "<rect x=\"" + svg_number(x0) + "\" y=\"" + svg_number(kBarTop) + "\" width=\"" +
               svg_number(std::max(x1 - x0, 0.5)) + "\" height=\"" + svg_number(kBarHeight) +
               "\" fill=\"" + colour(p) + "\"><title>" +
               escape_xml("+" + ms(p.at_ns) + ", " + ms(p.ns) + ": " + owner(p)) +
               "</title></rect>\n";
    }
    // The time axis, in ms from when the probe should have woken.
    const double top_ms = span / 1e6, step = tick_step(top_ms);
    const double axis_y = kBarTop + kBarHeight + 4;
    for (double t = 0; t <= top_ms * 1.0001; t += step) {
        const double tx = x(t * 1e6);
        out += "<line x1=\"" + svg_number(tx) + "\" y1=\"" + svg_number(axis_y) + "\" x2=\"" +
               svg_number(tx) + "\" y2=\"" + svg_number(axis_y + 4) + "\" stroke=\"#444\"/>\n";
        out += "<text x=\"" + svg_number(tx) + "\" y=\"" + svg_number(axis_y + 16) +
               "\" text-anchor=\"" + (t == 0 ? "start" : "middle") + "\">" + tick_label(t, step) +
               (t == 0 ? " ms" : "") + "</text>\n";
    }
    for (std::size_t i = 0; i < legend.size(); ++i) {
        const double lx = kLeft + 175 * static_cast<double>(i % 4);
        const double ly = axis_y + 30 + 18 * static_cast<double>(i / 4);
        out += "<rect x=\"" + svg_number(lx) + "\" y=\"" + svg_number(ly - 10) +
               "\" width=\"12\" height=\"12\" fill=\"" + legend[i].second + "\"/>\n";
        out += "<text x=\"" + svg_number(lx + 16) + "\" y=\"" + svg_number(ly) + "\">" +
               escape_xml(legend[i].first) + "</text>\n";
    }
    return out + "</svg>\n";
}

}  // namespace contest
