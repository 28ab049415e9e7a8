#include "contest/report/format_post.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "contest/analysis/build_report_model.h"
#include "contest/report/compare_view.h"
#include "contest/report/formats.h"
#include "contest/report/measure_changes_text.h"
#include "contest/report/post_lkp.h"
#include "contest/report/post_normalized.h"
#include "contest/report/run_facts.h"
#include "contest/report/text_tables.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"

namespace contest {

namespace {

bool tables_fit(const ReportModel& model) {
    return widest_line(text_load_tables(model, false)) <= kPostColumns &&
           widest_line(latency_tables(model, true)) <= kPostColumns;
}

std::string load_finding_line(const LoadFinding& f, bool adjust) {
    if (!f.fresh || !f.fresh->versus) return "  " + f.load + ": " + f.time_finding + "\n";
    const auto& v = *f.fresh->versus;
    std::string line = "  " + f.load + ": Time " + mean_and_ci(f.base->time) + " -> " +
                       mean_and_ci(f.fresh->time) + " (" + change_text(v) + ")";
    if (v.time_test) line += ", " + p_text(v.time_test) + " adjusted";
    line += ", " + f.time_finding + "; Ratio " + ratio_pair(f);
    if (v.ratio_test) line += ", " + p_text(v.ratio_test) + " adjusted, " + f.ratio_finding;
    if (v.time_other)
        line += std::string("; Time ") +
                (v.time_other->net_of_outside ? "net of outside work " : "raw ") +
                signed_percent(v.time_other->effect_pct) + ", " + p_text(v.time_other) +
                " adjusted" + (v.time_other->significant ? ", significant" : "");
    // Under --adjust outside, a test left raw says why, as every format does.
    if (adjust)
        for (const auto& [what, fit] :
             {std::pair{"Time", &v.time_outside}, std::pair{"Ratio", &v.ratio_outside}})
            if (*fit && !(*fit)->applied)
                line += std::string("; ") + what + " not net of outside work: " + (*fit)->why_not;
    return line + "\n";
}

std::string verdict_block(const CompareView& view, const ReportModel& model) {
    std::string out = "\n" + view.fresh + " against " + view.base + ":\n";
    for (const auto& f : view.loads) out += load_finding_line(f, model.adjust_outside);
    if (const std::string g = geometric_line(view); !g.empty()) out += "  " + g;
    const auto lat = latency_comparison_rows(model, view.base, view.fresh);
    for (std::size_t i = 1; i < lat.size(); ++i) {
        const auto& r = lat[i];
        out += "  " + r[0] + ", " + r[1] + ": p99 " + r[2] + " -> " + r[3] + " us (" + r[4] +
               "), p=" + r[5] + " adjusted, " + r[6] + "; missed " + r[7] + " -> " + r[8] +
               "%, p=" + r[10] + " adjusted, " + r[11] + "\n";
    }
    out += "  Verdict: " + view.verdict + "\n";
    return out + measure_changes_text(view.changes, model);
}

std::string post_of(const ReportModel& model, const PostNames& names) {
    const std::vector<CompareView> views = views_against_baseline(model);
    std::string out = post_subject(model, views) + "\n\n";
    out += post_facts(model) + post_legend(names, model) + "\n";
    out += text_load_tables(model, false) + text_units(model);
    for (const auto& note : model.notes) out += note + "\n";
    if (const auto legend = significance_legend(model); !legend.empty()) out += legend + "\n";
    if (model.has_latency()) out += "\n" + latency_blocks(model, true);
    if (!views.empty())
        out += "\nVerdicts (" + correction_summary(model) + "; alpha " + six_digits(model.alpha) +
               "):\n";
    for (const auto& view : views) out += verdict_block(view, model);
    return out + post_warnings(model) + post_command(model) + post_signature();
}

// The comparison shapes with a single label.
constexpr const char* kNothingToJudge =
    "\nOne label: nothing to judge against a baseline (contest post --style contest shows its "
    "tables).\n";

bool labels_fit_lkp(const ReportModel& model) {
    for (const auto& l : model.labels)
        if (display_width(l.label) > kLkpLabelColumns) return false;
    return true;
}

// The robot's mail: what ran where, the labels, then a table a comparison.
std::string lkp_post(const ReportModel& model, const PostNames& names,
                     const FollowedMeasure* followed = nullptr) {
    std::string out = post_subject(model, views_against_baseline(model)) + "\n\n";
    out += post_facts(model) + post_legend(names, model) + "\nlabels:\n";
    for (const auto& l : model.labels)
        out += "  " + l.label + (l.label == model.baseline ? " (the baseline)" : "") + "\n";
    out += model.labels.size() < 2 ? kNothingToJudge : lkp_comparisons(model, followed);
    return out + post_warnings(model) + post_command(model) + post_signature();
}

std::string normalized_post(const ReportModel& model, const PostNames& names) {
    std::string out = post_subject(model, views_against_baseline(model)) + "\n\n";
    out += post_facts(model) + post_legend(names, model);
    out += model.labels.size() < 2 ? kNothingToJudge : normalized_blocks(model, kPostColumns);
    return out + post_warnings(model) + post_command(model) + post_signature();
}

}  // namespace

std::string post_lkp_shape(const std::vector<ResultFile>& files, const ReportOptions& options) {
    const PostModel post = post_model(files, options, labels_fit_lkp);
    // UTF-8's "±", as the robot's mails have it.
    return post_lines(lkp_post(post.model, post.names), false);
}

std::string post_lkp_followed(const std::vector<ResultFile>& files, const ReportOptions& options,
                              const FollowedMeasure& followed) {
    const PostModel post = post_model(files, options, labels_fit_lkp);
    return post_lines(lkp_post(post.model, post.names, &followed), false);
}

std::string post_normalized_shape(const std::vector<ResultFile>& files,
                                  const ReportOptions& options) {
    const PostModel post =
        post_model(files, options, [](const ReportModel& m) { return normalized_fits(m); });
    return post_lines(normalized_post(post.model, post.names), true);
}

std::string post_contest_shape(const std::vector<ResultFile>& files, const ReportOptions& options) {
    const PostModel post = post_model(files, options, tables_fit);
    // Plain ASCII apart from what the labels and result files hold: the CIs'
    // "±" (of the shared formatters) as "+-".
    return post_lines(post_of(post.model, post.names), true);
}

std::string format_post(const std::vector<ResultFile>& files, const ReportOptions& options,
                        PostStyle style) {
    switch (style) {
        case PostStyle::lkp:
            return post_lkp_shape(files, options);
        case PostStyle::normalized:
            return post_normalized_shape(files, options);
        case PostStyle::contest:
            break;
    }
    return post_contest_shape(files, options);
}

}  // namespace contest
