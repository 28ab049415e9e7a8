// The notes under a report's table: how each Ratio was computed, and loads
// that did not load.
#include "contest/analysis/report_notes.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "contest/analysis/ratio.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

void note_ratio_method(ReportModel& model) {
    // Each way a Ratio was computed, and the cells computed that way.
    const std::string paired_text =
        "paired by round (each load run over the no_load run of its round; the geometric mean, "
        "its CI from the per-round log-ratios)";
    const std::string unpaired_head = "unpaired (mean Time over the no_load mean; ";
    const std::string no_round_text =
        unpaired_head + "no round holds both runs: --order blocks, or separate files)";
    const std::string too_few_text = unpaired_head + "fewer than " + std::to_string(kMinPairs) +
                                     " rounds hold both runs: more runs (-n) pair them)";
    std::vector<std::pair<std::string, std::vector<std::string>>> methods{
        {paired_text, {}}, {no_round_text, {}}, {too_few_text, {}}};
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (const auto& e = cell.ratio_estimate) {
                const std::size_t way = e->paired ? 0 : e->unpaired_rounds == 0 ? 1 : 2;
                methods[way].second.push_back(block.load + " (" + cell.label + ")");
            }
    std::erase_if(methods, [](const auto& m) { return m.second.empty(); });
    if (methods.empty()) return;
    if (methods.size() == 1) {
        model.notes.push_back("Ratio: " + methods[0].first + ".");
        return;
    }
    // The first way (the most common by construction: paired) is the rule;
    // the others name their cells.
    std::string note = "Ratio: " + methods[0].first;
    for (std::size_t i = 1; i < methods.size(); ++i)
        note += "; " + methods[i].first + " under " + join(methods[i].second, ", ");
    model.notes.push_back(note + ".");
}

// Labels of one --vary run ran in the same rounds, so their Time and Ratio
// are compared round by round; the note says where.
void note_paired_between_labels(ReportModel& model) {
    std::vector<std::string> paired, elsewhere;  // rows; the other rows' methods
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (!cell.versus) continue;
            bool any_paired = false;
            for (const auto* t : {&cell.versus->time_test, &cell.versus->ratio_test}) {
                if (!*t) continue;
                if ((*t)->method.starts_with("paired")) {
                    any_paired = true;
                } else if (std::find(elsewhere.begin(), elsewhere.end(), method_name(**t)) ==
                           elsewhere.end()) {
                    elsewhere.push_back(method_name(**t));
                }
            }
            if (any_paired) paired.push_back(block.load + " (" + cell.label + ")");
        }
    if (paired.empty()) return;
    std::string note =
        "Against the baseline: paired by round under " + join(paired, ", ") +
        " (labels of one --vary or --kernel run share their rounds: paired t on the per-round "
        "log differences of Time and of Ratio)";
    if (!elsewhere.empty()) note += "; elsewhere " + join(elsewhere, ", ");
    model.notes.push_back(note + ".");
}

// A row of 1.00s under a load must not read as "this kernel handles the
// load perfectly" when the load never got in the workload's way.
void note_loads_that_did_not_load(ReportModel& model) {
    for (const auto& block : model.blocks) {
        if (block.unit.empty()) continue;  // no_load, cacherun: nothing to load
        std::vector<std::string> flat, unsure;
        for (const auto& cell : block.cells) {
            if (!cell.ratio_estimate) continue;
            const auto& test = cell.ratio_estimate->test;
            if (test && test->significant && *cell.ratio > 1) continue;
            const std::string text = fixed(*cell.ratio, 2) + " (" + cell.label + ")";
            (*cell.ratio < 1 + model.min_effect_pct / 100 ? flat : unsure).push_back(text);
        }
        if (!flat.empty())
            model.notes.push_back(
                block.load + " did not load the workload: Ratio " + join(flat, ", ") +
                " is not above 1 beyond noise. The workload may not use what " + block.load +
                " contends for, so these rows do not say how the kernel handles " + block.load +
                ".");
        if (!unsure.empty())
            model.notes.push_back(block.load + ": Ratio " + join(unsure, ", ") +
                                  " is not above 1 beyond noise with these runs; more runs "
                                  "(--runs auto) would tell.");
    }
}

// Per load, how much of each label's Time spread the outside work explains:
// whether the machine was too busy, and what that cost in resolution.
void note_spread_explained(ReportModel& model) {
    for (const auto& block : model.blocks) {
        std::vector<std::string> parts;
        bool matters = false;
        for (const auto& cell : block.cells) {
            const auto& f = cell.outside_spread;
            if (!f || !std::isfinite(f->raw_sd) || !std::isfinite(f->residual_sd)) continue;
            const double explained = std::max(0.0, f->explained);
            matters = matters || explained >= kMinExplained;
            parts.push_back(cell.label + " " + fixed(100 * explained, 0) + "%, SD " +
                            fixed(100 * f->raw_sd, 1) + "% -> " +
                            fixed(100 * std::min(f->raw_sd, f->residual_sd), 1) + "%");
        }
        if (!matters) continue;
        model.notes.push_back(
            "Outside work (other processes' CPU, steal, the machine's speed) explains "
            "this much of Time's spread under " +
            block.load + ": " + join(parts, "; ") +
            " (SD of log time; a busy machine cost that much resolution)");
    }
}

}  // namespace

std::string method_name(const Test& t) {
    if (t.method == "Welch t") return "Welch's t-test";
    if (t.method.starts_with("paired t on per-round log differences"))
        return "paired t on per-round log differences (one --vary or --kernel run)";
    return t.method;
}

void add_notes(ReportModel& model) {
    note_ratio_method(model);
    note_paired_between_labels(model);
    note_loads_that_did_not_load(model);
    note_spread_explained(model);
}

}  // namespace contest
