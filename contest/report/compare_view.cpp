#include "contest/report/compare_view.h"

#include <cmath>
#include <string>
#include <vector>

#include "contest/analysis/min_runs.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

bool Findings::anything_judged() const {
    return !(slower.empty() && faster.empty() && same.empty() && hurts_more.empty() &&
             hurts_less.empty() && failed.empty() && failed_unsure.empty() && withheld.empty());
}

std::string verdict_basis(const Findings& found, const ReportModel& model) {
    if (!model.adjust_outside || !found.any_net) return "raw";
    return found.raw_under.empty() ? "net of outside work" : "mixed";
}

std::string verdict_basis(const ReportModel& model) {
    Findings found;
    const auto count = [&](const std::optional<Test>& t) {
        if (!t || !t->withheld.empty()) return;
        if (t->net_of_outside)
            found.any_net = true;
        else
            found.raw_under.push_back(t->what);
    };
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells) {
            if (cell.ratio_estimate) count(cell.ratio_estimate->test);
            if (!cell.versus) continue;
            count(cell.versus->time_test);
            count(cell.versus->ratio_test);
        }
    return verdict_basis(found, model);
}

namespace {

std::string failure_text(const Cell& c, const std::string& side) {
    std::string text = side + " " + std::to_string(c.failed) + " of " +
                       std::to_string(c.runs.size()) + " runs failed";
    if (c.timed_out) text += " (" + std::to_string(c.timed_out) + " timed out)";
    return text;
}

// A load in the verdict's "no difference beyond noise" list, with what its
// Time test could have seen there: "io_load (could see ±7.4%)".
std::string same_entry(const LoadFinding& f) {
    const auto& v = *f.fresh->versus;
    if (!v.time_test || std::isnan(v.time_test->mde_pct)) return f.load;
    return f.load + " (could see " + detectable_text(*v.time_test) + ")";
}

// Under --adjust outside, the basis each of the load's verdict tests stands on.
void note_basis(const LoadFinding& f, const ReportModel& model, Findings& found) {
    if (!model.adjust_outside) return;
    const VersusBaseline& v = *f.fresh->versus;
    std::vector<std::string> raw, withheld;
    for (const auto* t : {v.judged ? &v.time_test : nullptr, &v.ratio_test}) {
        if (!t || !*t) continue;
        const Test& test = **t;
        if (!test.withheld.empty())
            withheld.push_back(test.what + ": " + test.withheld);
        else if (test.net_of_outside)
            found.any_net = true;
        else
            raw.push_back(test.what);
    }
    if (!withheld.empty()) found.withheld.push_back(f.load + " (" + join(withheld, "; ") + ")");
    if (!raw.empty()) found.raw_under.push_back(f.load + " " + join_list(raw));
}

void find(LoadFinding& f, const ReportModel& model, Findings& found) {
    const VersusBaseline& v = *f.fresh->versus;
    const bool differs = v.significant || v.ratio_significant;
    note_basis(f, model, found);
    const bool withheld = v.time_test && !v.time_test->withheld.empty();
    if (v.ratio_test) {
        const Test& t = *v.ratio_test;
        f.ratio_finding = test_finding(t, model);
        if (v.ratio_significant) {
            (t.effect_pct > 0 ? found.hurts_more : found.hurts_less)
                .push_back(f.load + " (Ratio " + signed_percent(t.effect_pct) + ")");
            (t.effect_pct > 0 ? found.hurts_more_loads : found.hurts_less_loads).push_back(f.load);
        }
    }
    if (!v.judged) {
        f.time_finding = "not judged (" + std::to_string(f.base->time.n) + " vs " +
                         std::to_string(f.fresh->time.n) + " runs)";
        found.unjudged.push_back(f.load);
    } else if (v.significant) {
        f.time_finding = "significant";
        // The test's own change (under --adjust outside, the net one).
        const double change = time_change_pct(v);
        (change > 0 ? found.slower : found.faster)
            .push_back(f.load + " (" + signed_percent(change) + ")");
        (change > 0 ? found.slower_loads : found.faster_loads).push_back(f.load);
    } else {
        f.time_finding = v.time_test ? test_finding(*v.time_test, model) : "not significant";
    }
    if (v.failures) {
        std::vector<std::string> sides;
        if (f.base->failed) sides.push_back(failure_text(*f.base, "base"));
        if (f.fresh->failed) sides.push_back(failure_text(*f.fresh, "new"));
        (differs ? found.failed : found.failed_unsure)
            .push_back(f.load + " (" + join_list(sides) + ")");
    } else if (v.judged && !differs && !withheld) {
        found.same.push_back(same_entry(f));
        if (v.time_test && !std::isnan(v.time_test->mde_pct))
            found.same_resolution.push_back(f.load + " " + detectable_text(*v.time_test));
    }
}

// The basis under --adjust outside, as it is: ", net of outside work", or
// where the adjustment did not apply to every test of the verdict, where it
// stands raw (the "Net of outside work" block says why).
std::string basis_reading(const Findings& found, const ReportModel& model) {
    if (!model.adjust_outside) return "";
    const std::string basis = verdict_basis(found, model);
    if (basis == "net of outside work") return ", net of outside work";
    if (basis == "mixed")
        return ", net of outside work but raw under " + join_list(found.raw_under) +
               " (not adjusted there: the outside-work block says why)";
    return found.raw_under.empty()
               ? ""
               : ", raw: the outside-work adjustment applied to none of its tests (the "
                 "outside-work block says why)";
}

std::string verdict_of(const Findings& found, const ReportModel& model) {
    const std::string reading = "alpha " + six_digits(model.alpha) + ", " +
                                correction_summary(model) + basis_reading(found, model);
    if (!found.anything_judged())
        return "too few runs to judge anything: significance needs " +
               std::to_string(kMinRunsForSignificance) +
               " or more successful runs of each kernel under a load (--runs)";
    std::vector<std::string> parts;
    if (!found.slower.empty()) parts.push_back("new is slower under " + join_list(found.slower));
    if (!found.faster.empty()) parts.push_back("new is faster under " + join_list(found.faster));
    if (!found.hurts_more.empty())
        parts.push_back("the load hurts more on new under " + join_list(found.hurts_more));
    if (!found.hurts_less.empty())
        parts.push_back("the load hurts less on new under " + join_list(found.hurts_less));
    if (!found.failed.empty()) parts.push_back("runs failed under " + join_list(found.failed));
    if (!found.failed_unsure.empty())
        parts.push_back("runs failed under " + join_list(found.failed_unsure) +
                        ": not judged the same there");
    if (!found.withheld.empty())
        parts.push_back("not judged under " + join_list(found.withheld) +
                        ": neither the raw test, which that moves, nor the net one, which "
                        "could take out what the compared thing did, can tell");
    std::string verdict;
    if (parts.empty()) {
        verdict = "no difference beyond noise under any load (" + reading +
                  "): as far as these runs can tell, the two kernels perform the same";
        if (!found.same_resolution.empty())
            verdict +=
                ", within the Time changes they could see: " + join_list(found.same_resolution);
    } else {
        if (!found.same.empty())
            parts.push_back("no difference beyond noise under " + join_list(found.same));
        verdict = parts.front();
        for (std::size_t i = 1; i < parts.size(); ++i) verdict += "; " + parts[i];
        verdict += " (" + reading + ")";
    }
    if (!found.unjudged.empty()) verdict += "; too few runs to judge " + join_list(found.unjudged);
    return verdict;
}

// In a few words: what moved, or that nothing did.
std::string short_verdict_of(const Findings& found) {
    if (!found.anything_judged()) return "too few runs to judge";
    std::vector<std::string> parts;
    auto say = [&](const char* what, const std::vector<std::string>& loads) {
        if (!loads.empty()) parts.push_back(what + join_list(loads));
    };
    say("slower under ", found.slower_loads);
    say("faster under ", found.faster_loads);
    say("loads hurt more under ", found.hurts_more_loads);
    say("loads hurt less under ", found.hurts_less_loads);
    if (!found.failed.empty() || !found.failed_unsure.empty()) parts.push_back("runs failed");
    if (!found.withheld.empty()) parts.push_back("not judged under some loads");
    if (parts.empty()) return "no difference beyond noise";
    std::string out = parts.front();
    for (std::size_t k = 1; k < parts.size(); ++k) out += "; " + parts[k];
    return out;
}

}  // namespace

CompareView compare_view(const ReportModel& model, const std::string& base,
                         const std::string& fresh) {
    CompareView view;
    view.base = base;
    view.fresh = fresh;
    Findings found;
    double log_sum = 0;
    for (const auto& block : model.blocks) {
        LoadFinding f;
        f.load = block.load;
        f.base = model.find_cell(block.load, view.base);
        f.fresh = model.find_cell(block.load, view.fresh);
        if (f.fresh && f.fresh->versus) {
            find(f, model, found);
            // Each load's change of record, as its row says it (paired by
            // round where it was, net where adjusted), not its means' ratio:
            // the summary agrees with the rows above it.
            log_sum += std::log1p(time_change_pct(*f.fresh->versus) / 100);
            ++view.geometric_count;
        } else {
            f.time_finding = (f.base && f.base->time.n)     ? "only base has ok runs"
                             : (f.fresh && f.fresh->time.n) ? "only new has ok runs"
                                                            : "no ok runs";
            if (f.base && f.base->failed)
                found.failed.push_back(f.load + " (" + failure_text(*f.base, "base") + ")");
            if (f.fresh && f.fresh->failed)
                found.failed.push_back(f.load + " (" + failure_text(*f.fresh, "new") + ")");
        }
        view.loads.push_back(f);
    }
    if (view.geometric_count) view.geometric_mean = std::exp(log_sum / view.geometric_count);
    view.verdict = verdict_of(found, model);
    view.short_verdict = short_verdict_of(found);
    view.findings = found;
    view.changes = measure_changes(model, view.base, view.fresh);
    return view;
}

namespace {

std::string latency_finding(const std::optional<Test>& t, const ReportModel& model) {
    return t ? test_finding(*t, model)
             : "not judged (fewer than " + std::to_string(kMinRunsForSignificance) + " runs)";
}

}  // namespace

std::vector<std::vector<std::string>> latency_comparison_rows(const ReportModel& model,
                                                              const std::string& base,
                                                              const std::string& fresh) {
    std::vector<std::vector<std::string>> rows = {
        {"load", "probe", "base_p99_us", "new_p99_us", "p99_change_pct", "p99_p_adjusted",
         "p99_finding", "base_missed_pct", "new_missed_pct", "missed_change_points",
         "missed_p_adjusted", "missed_finding", "p99_mde_pct", "missed_mde_points"}};
    for (const auto& block : model.blocks)
        for (const auto& row : block.latency) {
            if (row.label != fresh) continue;
            const LatencyRow* b = nullptr;
            for (const auto& other : block.latency)
                if (other.label == base && other.probe == row.probe) b = &other;
            if (!b) continue;
            auto p_adj = [](const std::optional<Test>& t) {
                return t ? format_p(t->p_adjusted) : std::string("-");
            };
            auto mde = [](const std::optional<Test>& t) {
                return t ? six_digits(t->mde_pct) : std::string();
            };
            rows.push_back({block.load, row.probe, fixed(b->p99_ns / 1000, 1),
                            fixed(row.p99_ns / 1000, 1),
                            signed_percent((row.p99_ns / b->p99_ns - 1) * 100), p_adj(row.p99_test),
                            latency_finding(row.p99_test, model), fixed(b->missed_pct, 2),
                            fixed(row.missed_pct, 2), fixed(row.missed_pct - b->missed_pct, 2),
                            p_adj(row.missed_test), latency_finding(row.missed_test, model),
                            mde(row.p99_test), mde(row.missed_test)});
        }
    return rows;
}

std::string mean_and_ci(const stats::Summary& s) {
    const int decimals = s.mean >= 100 ? 1 : 2;
    std::string out = fixed(s.mean, decimals);
    if (std::isfinite(s.ci95_half)) out += " ± " + fixed(s.ci95_half, decimals);
    return out + " s";
}

std::string p_text(const std::optional<Test>& t) {
    if (!t) return "p=-";
    const std::string formatted = format_p(t->p_adjusted);
    return formatted[0] == '<' ? "p" + formatted : "p=" + formatted;
}

std::string test_finding(const Test& t, const ReportModel& model) {
    if (!t.withheld.empty()) return "not judged: " + t.withheld;
    if (t.significant) return "significant";
    const std::string why = test_verdict(t, model);
    const std::string finding =
        why.starts_with("no: ") ? "not significant (" + why.substr(4) + ")" : "not significant";
    const std::string resolution = could_see(t);
    return resolution.empty() ? finding : finding + "; " + resolution;
}

std::string change_text(const VersusBaseline& v) {
    const std::string change = signed_percent(time_change_pct(v));
    return v.time_test && v.time_test->net_of_outside ? change + " net" : change;
}

std::string ratio_pair(const LoadFinding& f) {
    return fixed(f.base->ratio.value_or(std::nan("")), 2) + " -> " +
           fixed(f.fresh->ratio.value_or(std::nan("")), 2);
}

std::string geometric_line(const CompareView& view) {
    if (!view.geometric_count) return "";
    return "geometric mean of the Time changes above, over " +
           std::to_string(view.geometric_count) +
           (view.geometric_count == 1 ? " load: " : " loads: ") + fixed(view.geometric_mean, 3) +
           " (" + signed_percent((view.geometric_mean - 1) * 100) + ")\n";
}

}  // namespace contest
