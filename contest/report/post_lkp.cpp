#include "contest/report/post_lkp.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "contest/report/compare_view.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// As the robot prints its figures: fewer decimals the larger they are, so
// a column of them stays ten wide.
std::string figure(double v) {
    if (!std::isfinite(v)) return "-";
    const double a = std::fabs(v);
    return fixed(v, a >= 1000 ? 0 : a >= 100 ? 1 : 2);
}

// "± 12%"; blank where the runs' spread is not known.
std::string stddev(double cv_pct) {
    if (!std::isfinite(cv_pct)) return std::string(6, ' ');
    char buf[16];
    std::snprintf(buf, sizeof buf, "±%3.0f%%", std::min(cv_pct, 999.0));
    return buf;
}

// "+6.9%"; a percentage's change in points, without "%", as the robot does.
std::string change(const MeasureRow& row) {
    if (!std::isfinite(row.change_pct)) return "-";
    return row.kind.in_points ? (row.change_pct >= 0 ? "+" : "") + fixed(row.change_pct, 1)
                              : signed_percent(row.change_pct);
}

std::string row_line(const MeasureRow& row, const FollowedMeasure* followed) {
    std::string mark = row.mark();
    if (followed && row.probe.empty() && row.load == followed->load &&
        row.kind.name == followed->row)
        mark = followed->differ ? "*" : "";
    if (mark.empty()) mark = " ";
    return right_aligned(figure(row.base), 10) + " " + stddev(row.base_cv_pct) +
           right_aligned(change(row), 11) + right_aligned(figure(row.fresh), 11) + " " +
           stddev(row.fresh_cv_pct) + "  " + mark + " " + row.path();
}

// "lower is better: time_s, ratio, ...; higher is better: loads (...)".
std::string directions(const std::vector<MeasureRow>& rows) {
    std::vector<std::string> lower, higher, units;
    std::set<std::string> seen;
    for (const auto& row : rows) {
        if (!seen.insert(row.kind.name).second) continue;
        (row.kind.lower_is_better ? lower : higher).push_back(row.kind.name);
    }
    std::string out;
    if (!lower.empty()) out += "lower is better: " + join(lower, ", ");
    if (!higher.empty())
        out += std::string(out.empty() ? "" : "; ") + "higher is better: " + join(higher, ", ") +
               " (the load's work done while the workload ran, in the load's unit)";
    return out;
}

// The verdict on the followed measure, by its own test; the model's, on
// Time, beside it.
std::string followed_verdict(const FollowedMeasure& f, const CompareView& view) {
    return "  Verdict on " + f.name + ", the measure followed: " +
           (f.differ ? "changed " + f.change + ", beyond noise by its own test"
                     : "no change beyond noise by its own test (" + f.change + ")") +
           " (" + f.test + ").\n  Time, beside it: " + view.verdict + "\n";
}

std::string one_comparison(const ReportModel& model, const CompareView& view,
                           const FollowedMeasure* followed) {
    const auto rows = comparison_rows(model, view.base, view.fresh);
    std::string out = "\n" + left_aligned(view.base, kLkpLabelColumns) + " " + view.fresh + "\n";
    out += std::string(16, '-') + " " + std::string(27, '-') + "\n";
    out += "         %stddev     %change         %stddev\n";
    out += "             \\          |                \\\n";
    for (const auto& row : rows) out += row_line(row, followed) + "\n";
    if (rows.empty()) out += "  (no load both labels ran)\n";
    out += "\n  " + row_marks_legend(model) + "\n";
    if (followed && !followed->row.empty())
        out += "  The mark of " + followed->load + "." + followed->row + ", the measure followed (" +
               followed->name + "), is its own test's, below; the others' are the model's.\n";
    out +=
        "  %stddev: the runs' standard deviation over their mean; blank where one figure "
        "stands for every run (Ratio, the pooled percentiles but the 99th). %change: its "
        "test's where it has one (for Time paired by round, the per-round ratios' geometric "
        "mean), else the figures'; a percentage's in points.\n";
    if (const std::string d = directions(rows); !d.empty()) out += "  " + d + "\n";
    if (const std::string c = rows_could_see(rows); !c.empty())
        out += "  These runs could see: " + c + "\n";
    if (const std::string g = geometric_line(view); !g.empty()) out += "  " + g;
    if (followed) return out + followed_verdict(*followed, view);
    return out + "  Verdict: " + view.verdict + "\n";
}

}  // namespace

std::string lkp_comparisons(const ReportModel& model, const FollowedMeasure* followed) {
    std::string out;
    for (const auto& l : model.labels) {
        if (l.label == model.baseline) continue;
        out += one_comparison(model, compare_view(model, model.baseline, l.label), followed);
    }
    return out;
}

}  // namespace contest
