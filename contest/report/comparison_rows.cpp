#include "contest/report/comparison_rows.h"

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contest/analysis/latency_model.h"
#include "contest/analysis/min_runs.h"
#include "contest/analysis/stats.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double cv_pct(const stats::Summary& s) {
    return s.n >= 2 ? s.cv * 100 : kNaN;
}

double cv_pct_of(const std::vector<double>& sample) {
    return cv_pct(stats::summarize(std::span<const double>(sample)));
}

const Test* test_of(const std::optional<Test>& t) {
    return t ? &*t : nullptr;
}

MeasureRow row_of(const std::string& load, const std::string& probe, RowKind kind, double base,
                  double fresh) {
    MeasureRow row;
    row.load = load;
    row.probe = probe;
    row.kind = std::move(kind);
    row.base = base;
    row.fresh = fresh;
    row.base_cv_pct = row.fresh_cv_pct = kNaN;
    row.change_pct = plain_change_pct(base, fresh, row.kind.in_points);
    return row;
}

void add_cell_rows(const LoadBlock& block, const Cell& base, const Cell& fresh,
                   std::vector<MeasureRow>& rows) {
    const VersusBaseline& v = *fresh.versus;
    // The figure normalised by the test's change: for a test paired by round, a GMean.
    const bool time_paired = v.time_test && v.time_test->method.starts_with("paired");
    MeasureRow time = row_of(block.load, "",
                             {"time_s", "Time (the workload's wall time)", "seconds",
                              time_paired ? "GMean of the per-round ratios" : "AMean", true, false},
                             base.time.mean, fresh.time.mean);
    time.base_cv_pct = cv_pct(base.time);
    time.fresh_cv_pct = cv_pct(fresh.time);
    time.test = test_of(v.time_test);
    time.judged = v.judged;
    time.significant = v.significant;
    rows.push_back(time);

    if (base.ratio && fresh.ratio && base.ratio_estimate && fresh.ratio_estimate) {
        const bool paired = base.ratio_estimate->paired && fresh.ratio_estimate->paired;
        MeasureRow ratio = row_of(
            block.load, "",
            {"ratio", "Ratio (Time over the same label's no_load Time)", "Ratio",
             paired ? "GMean of the per-round ratios" : "AMean over no_load's AMean", true, false},
            *base.ratio, *fresh.ratio);
        ratio.test = test_of(v.ratio_test);
        ratio.significant = v.ratio_significant;
        rows.push_back(ratio);
    }

    if (!block.unit.empty() && base.loads_counted && fresh.loads_counted && base.load_units.n > 0 &&
        fresh.load_units.n > 0) {
        MeasureRow work = row_of(block.load, "",
                                 {"loads", "Loads (the load's work while the workload ran)",
                                  block.unit, "AMean", false, false},
                                 base.load_units.mean, fresh.load_units.mean);
        work.base_cv_pct = cv_pct(base.load_units);
        work.fresh_cv_pct = cv_pct(fresh.load_units);
        rows.push_back(work);
    }
}

void add_latency_rows(const std::string& load, const LatencyRow& base, const LatencyRow& fresh,
                      std::vector<MeasureRow>& rows) {
    const std::string title = fresh.probe + " latency";
    const std::string statistic = base.pooled && fresh.pooled
                                      ? "percentiles over every sample of the runs (pooled)"
                                      : "the mean of the runs' percentiles";
    struct Percentile {
        const char* name;
        double base_ns, fresh_ns;
        bool tested;
    };
    const Percentile percentiles[] = {
        {"50.0th_us", base.p50_ns, fresh.p50_ns, false},
        {"90.0th_us", pooled_p90_ns(base), pooled_p90_ns(fresh), false},
        {"99.0th_us", base.p99_ns, fresh.p99_ns, true},
        {"99.9th_us", base.p999_ns, fresh.p999_ns, false}};
    for (const auto& p : percentiles) {
        if (!std::isfinite(p.base_ns) || !std::isfinite(p.fresh_ns)) continue;
        MeasureRow row = row_of(load, fresh.probe, {p.name, title, "us", statistic, true, false},
                                p.base_ns / 1000, p.fresh_ns / 1000);
        if (p.tested) {
            row.base_cv_pct = cv_pct_of(base.run_p99_ns);
            row.fresh_cv_pct = cv_pct_of(fresh.run_p99_ns);
            row.test = test_of(fresh.p99_test);
            row.significant = fresh.p99_significant();
        }
        rows.push_back(row);
    }
    if (std::isfinite(base.missed_pct) && std::isfinite(fresh.missed_pct)) {
        MeasureRow missed =
            row_of(load, fresh.probe,
                   {"missed_pct", title, "% of the periods", "missed over all periods", true, true},
                   base.missed_pct, fresh.missed_pct);
        missed.base_cv_pct = cv_pct_of(base.run_missed_pct);
        missed.fresh_cv_pct = cv_pct_of(fresh.run_missed_pct);
        missed.test = test_of(fresh.missed_test);
        missed.significant = fresh.missed_significant();
        rows.push_back(missed);
    }
}

}  // namespace

double change_of_record(const Test* test, double plain_pct) {
    return test && std::isfinite(test->effect_pct) ? test->effect_pct : plain_pct;
}

double plain_change_pct(double base, double fresh, bool in_points) {
    if (in_points) return fresh - base;
    return base != 0 ? (fresh / base - 1) * 100 : kNaN;
}

double time_change_pct(const VersusBaseline& v) {
    return change_of_record(v.time_test ? &*v.time_test : nullptr, v.change_pct);
}

double pooled_p90_ns(const LatencyRow& r) {
    if (!r.pooled || r.bins.empty()) return kNaN;
    return pooled_percentile_ns(r.bins, 90, static_cast<double>(r.bins.front().lower_ns), r.max_ns);
}

std::string MeasureRow::mark() const {
    if (!judged) return "?";
    return significant ? "*" : "";
}

std::string MeasureRow::path() const {
    return load + "." + (probe.empty() ? "" : probe + ".") + kind.name;
}

std::vector<MeasureRow> comparison_rows(const ReportModel& model, const std::string& base,
                                        const std::string& fresh) {
    std::vector<MeasureRow> rows;
    for (const auto& block : model.blocks) {
        const Cell* b = model.find_cell(block.load, base);
        const Cell* f = model.find_cell(block.load, fresh);
        if (b && f && f->versus && b->time.n > 0 && f->time.n > 0)
            add_cell_rows(block, *b, *f, rows);
        for (const auto& row : block.latency) {
            if (row.label != fresh) continue;
            for (const auto& other : block.latency)
                if (other.label == base && other.probe == row.probe)
                    add_latency_rows(block.load, other, row, rows);
        }
    }
    for (auto& row : rows) row.change_pct = change_of_record(row.test, row.change_pct);
    return rows;
}

std::string row_marks_legend(const ReportModel& model) {
    return "* beyond noise (adjusted p < " + six_digits(model.alpha) + ", " +
           correction_summary(model) + "); ? fewer than " +
           std::to_string(kMinRunsForSignificance) + " runs on a side, not judged";
}

std::string rows_could_see(const std::vector<MeasureRow>& rows) {
    std::vector<std::string> seen;
    for (const auto& row : rows) {
        if (!row.test || row.significant) continue;
        const std::string could = detectable_text(*row.test);
        if (could != "-") seen.push_back(row.path() + " " + could);
    }
    return join(seen, ", ");
}

}  // namespace contest
