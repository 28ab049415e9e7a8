#include "contest/report/kcidb_tests.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "contest/analysis/measure_changes.h"
#include "contest/analysis/measures.h"
#include "contest/report/compare_view.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/report/kcidb_objects.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest::kcidb {

namespace {

ojson summary_misc(const stats::Summary& s) {
    return {{"runs", s.n},
            {"mean", misc_number(s.mean)},
            {"median", misc_number(s.median)},
            {"sd", misc_number(s.sd)},
            {"cv_pct", misc_number(s.n >= 2 ? s.cv * 100 : std::nan(""))},
            {"ci95_half", misc_number(s.ci95_half)},
            {"min", misc_number(s.min)},
            {"max", misc_number(s.max)}};
}

std::optional<Judgement> judgement_of(const std::optional<Test>& t, bool judged, bool significant,
                                      const std::string& baseline) {
    if (!t) return std::nullopt;
    return Judgement{&*t, judged, significant, baseline};
}

void add_cell(const LoadBlock& block, const Cell& cell, const Cell* base,
              const std::string& baseline, std::vector<Measured>& out) {
    const std::string& load = block.load;
    const std::size_t n = cell.time.n;
    const std::string over = " over " + std::to_string(n) + (n == 1 ? " run" : " runs");
    const VersusBaseline* v = cell.versus ? &*cell.versus : nullptr;
    Measured time{load + ".time_s", cell.time.mean, "s",
                  load + ": the workload's mean wall time" + over, summary_misc(cell.time)};
    if (cell.failed) time.misc["failed_runs"] = cell.failed;
    if (v && base) time.judgement = judgement_of(v->time_test, v->judged, v->significant, baseline);
    out.push_back(time);
    if (cell.ratio && cell.ratio_estimate) {
        const RatioEstimate& r = *cell.ratio_estimate;
        Measured ratio{load + ".ratio",
                       *cell.ratio,
                       "",
                       load + ": Time over the same label's no_load Time" + over,
                       {{"ci95_low", misc_number(r.ci95_low)},
                        {"ci95_high", misc_number(r.ci95_high)},
                        {"paired_by_round", r.paired}}};
        if (v && base && base->ratio)
            ratio.judgement = judgement_of(v->ratio_test, true, v->ratio_significant, baseline);
        out.push_back(ratio);
    }
    out.push_back({load + ".cpu_pct", cell.cpu_pct.mean, "%",
                   load + ": the workload's CPU use, user and system time over wall" + over,
                   summary_misc(cell.cpu_pct)});
    if (block.unit.empty()) return;  // no load ran beside the workload
    if (cell.loads_counted && cell.load_units.n > 0)
        out.push_back({load + ".loads", cell.load_units.mean, block.unit,
                       load + ": the load's work done while the workload ran" + over,
                       summary_misc(cell.load_units)});
    out.push_back({load + ".load_cpu_pct", cell.load_cpu_pct.mean, "%",
                   load + ": the load's CPU use while the workload ran" + over,
                   summary_misc(cell.load_cpu_pct)});
}

void add_latency(const std::string& load, const LatencyRow& row, const LatencyRow* base,
                 const std::string& baseline, std::vector<Measured>& out) {
    const std::string at = load + "." + row.probe + ".";
    const std::string of = load + ": the " + row.probe + " probe's ";
    const std::string how = row.pooled ? " over every sample of " + std::to_string(row.runs) +
                                             " runs (histograms pooled)"
                                       : ", the mean of " + std::to_string(row.runs) + " runs'";
    ojson misc = {{"samples", row.samples}, {"runs", row.runs}, {"pooled", row.pooled}};
    struct Percentile {
        const char* name;
        const char* words;
        double ns;
    };
    // schbench's order; a dot would split the path, so p99_9 for the 99.9th.
    for (const Percentile& p :
         {Percentile{"p50_us", "50th", row.p50_ns},
          Percentile{"p90_us", "90th", pooled_p90_ns(row)},
          Percentile{"p99_us", "99th", row.p99_ns}, Percentile{"p99_9_us", "99.9th", row.p999_ns},
          Percentile{"max_us", "largest", row.max_ns}}) {
        if (!std::isfinite(p.ns)) continue;
        Measured m{at + p.name, p.ns / 1000, "us",
                   of + p.words + " percentile wake-up latency" + how, misc};
        if (std::string(p.name) == "max_us") m.comment = of + "largest wake-up latency";
        if (std::string(p.name) == "p99_us" && base)
            m.judgement = judgement_of(row.p99_test, true, row.p99_significant(), baseline);
        out.push_back(m);
    }
    if (std::isfinite(row.missed_pct)) {
        Measured m{at + "missed_pct", row.missed_pct, "%",
                   of + "periods whose deadline passed, over all its periods", misc};
        if (base)
            m.judgement = judgement_of(row.missed_test, true, row.missed_significant(), baseline);
        out.push_back(m);
    }
}

// What changed beyond noise between a label and the baseline, on both sides.
void add_changes(const ReportModel& model, const std::string& label,
                 std::map<std::string, std::vector<Measured>>& by_label) {
    const CompareView view = compare_view(model, model.baseline, label);
    for (const auto& load : view.changes)
        for (const auto& change : load.changed) {
            const Measure* m = find_measure(change.measure);
            const std::string unit = m ? std::string(m->unit) : "";
            const std::string path = load.load + "." + change.measure;
            const std::string comment = load.load + ": " +
                                        (change.meaning.empty() ? change.measure : change.meaning) +
                                        ", mean over the runs (changed beyond noise between " +
                                        model.baseline + " and " + label + ")";
            ojson misc = {{"base_label", model.baseline},
                          {"base_mean", misc_number(change.base_mean)},
                          {"new_label", label},
                          {"new_mean", misc_number(change.new_mean)},
                          {"change_pct", misc_number(change.test.effect_pct)},
                          {"p_adjusted", misc_number(change.test.p_adjusted)}};
            by_label[label].push_back({path, change.new_mean, unit, comment, misc});
            by_label[model.baseline].push_back({path, change.base_mean, unit, comment, misc});
        }
}

// A path component as KCIDB's path pattern takes it: what else a measure's
// or a load's name holds becomes '_' (a dot would start a new component).
std::string path_part(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    return out;
}

}  // namespace

std::map<std::string, std::vector<Measured>> measured_by_label(const ReportModel& model) {
    std::map<std::string, std::vector<Measured>> by_label;
    for (const auto& block : model.blocks) {
        for (const auto& cell : block.cells)
            if (cell.time.n > 0)
                add_cell(block, cell, model.find_cell(block.load, model.baseline), model.baseline,
                         by_label[cell.label]);
        for (const auto& row : block.latency) {
            const LatencyRow* base = nullptr;
            for (const auto& other : block.latency)
                if (other.label == model.baseline && other.probe == row.probe) base = &other;
            add_latency(block.load, row, row.label == model.baseline ? nullptr : base,
                        model.baseline, by_label[row.label]);
        }
    }
    for (const auto& l : model.labels)
        if (l.label != model.baseline) add_changes(model, l.label, by_label);
    return by_label;
}

std::string test_path(const std::string& measured_path) {
    std::vector<std::string> parts;
    for (std::size_t at = 0, dot; at <= measured_path.size(); at = dot + 1) {
        dot = std::min(measured_path.find('.', at), measured_path.size());
        parts.push_back(path_part(measured_path.substr(at, dot - at)));
    }
    return "contest." + join(parts, ".");
}

Status status_of(const Judgement& j, double target_mde_pct) {
    const Test& t = *j.test;
    if (!j.judged || !t.withheld.empty() || !std::isfinite(t.p_adjusted)) return {};
    if (j.significant) return {t.effect_pct > 0 ? "FAIL" : "PASS", ""};
    if (std::isfinite(t.mde_pct) && t.mde_pct <= target_mde_pct) return {"PASS", ""};
    const bool points = t.resolution && t.resolution->in_points;
    const std::string target = six_digits(target_mde_pct) + (points ? " points" : "%");
    const std::string seen = detectable_text(t);
    std::string why;
    if (std::isnan(t.mde_pct))
        why = "what these runs could see is not known";
    else if (std::isinf(t.mde_pct))
        why = "these runs could see no change at this level";
    else
        why = "these runs could see only a change " +
              (seen.starts_with("over ") ? seen : "of " + seen + " or more") + ", not one of " +
              target + " (--target-mde)";
    return {"DONE", why + ": no PASS or FAIL"};
}

}  // namespace contest::kcidb
