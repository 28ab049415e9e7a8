#include "contest/report/outputs.h"

#include <string_view>
#include <vector>

#include "contest/analysis/run_summary.h"
#include "contest/report/format_compare.h"
#include "contest/report/format_post.h"
#include "contest/report/post_lkp.h"
#include "contest/report/post_normalized.h"
#include "contest/report/post_parts.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest {

// Each format's file defines its report renderer; this is the one place that
// lists the outputs.
std::string format_text(const ReportModel& model, const ReportOptions& options);
std::string format_markdown(const ReportModel& model, const ReportOptions& options);
std::string format_csv(const ReportModel& model, const ReportOptions& options);
std::string format_json(const ReportModel& model, const ReportOptions& options);
std::string format_html(const ReportModel& model, const ReportOptions& options);
std::string compare_html(const ReportModel& model);

namespace {

// Shapes made for mail: their prose broken into lines as the post's is, the
// tables' rows whole (compare does not shorten labels).
std::string compare_lkp(const ReportModel& model) {
    return post_lines(lkp_comparisons(model), false, true);
}

std::string compare_normalized(const ReportModel& model) {
    return post_lines(normalized_blocks(model, kPostColumns), true, true);
}

// clang-format off
const Output kOutputs[] = {
    {.name = "text", .what = "the classic contest table, for a terminal",
     .report = format_text, .compare = compare_text, .latency = latency_window_text,
     .history_list = history_series_list_text, .history_show = history_series_points_text,
     .history_changes = history_changes_text, .history_triage = history_triage_text,
     .history_hosts = history_hosts_text, .bisection = bisection_answer_text,
     .track_status = track_status_text, .track_mail = track_mail_text,
     .boot_status = boot_status_text, .loads_list = loads_list_text,
     .load_work = load_work_text},
    {.name = "markdown", .what = "the tables in Markdown",
     .report = format_markdown, .compare = compare_markdown},
    {.name = "csv", .what = "one row per label and load, every figure a column",
     .report = format_csv, .compare = compare_csv},
    {.name = "json", .what = "the report model, every figure and test",
     .report = format_json, .compare = compare_json, .latency = latency_window_json,
     .load_work = load_work_json},
    {.name = "html", .what = "one page with the tables and the drawings, no script",
     .report = format_html, .compare = compare_html, .trend = trend_page_html},
    {.name = "contest", .what = "a mail for a kernel list: the table, latency, verdicts and the command",
     .post = post_contest_shape},
    {.name = "lkp", .what = "the 0-day robot's %stddev %change columns",
     .compare = compare_lkp, .post = post_lkp_shape},
    {.name = "normalized", .what = "the blocks scheduler series give each test, normalised to the baseline",
     .compare = compare_normalized, .post = post_normalized_shape},
    {.name = "kcidb", .what = "a KCIDB submission (kcidb-io schema v4.4) for kcidb-submit",
     .exported = kcidb_submission},
    {.name = "summary-json", .what = "a small stable JSON of one label's run, a test case per load",
     .run_summary = run_summary},
};
// clang-format on

}  // namespace

bool Output::offered_by(OutputUse use) const {
    switch (use) {
        case OutputUse::report:
            return report != nullptr;
        case OutputUse::compare:
            return compare != nullptr;
        case OutputUse::post:
            return post != nullptr;
        case OutputUse::export_:
            return exported != nullptr;
        case OutputUse::run_summary:
            return run_summary != nullptr;
        case OutputUse::latency:
            return latency != nullptr;
        case OutputUse::trend:
            return trend != nullptr;
        case OutputUse::history_list:
            return history_list != nullptr;
        case OutputUse::history_show:
            return history_show != nullptr;
        case OutputUse::history_changes:
            return history_changes != nullptr;
        case OutputUse::history_triage:
            return history_triage != nullptr;
        case OutputUse::history_hosts:
            return history_hosts != nullptr;
        case OutputUse::bisection:
            return bisection != nullptr;
        case OutputUse::track_status:
            return track_status != nullptr;
        case OutputUse::track_mail:
            return track_mail != nullptr;
        case OutputUse::boot_status:
            return boot_status != nullptr;
        case OutputUse::loads_list:
            return loads_list != nullptr;
        case OutputUse::load_work:
            return load_work != nullptr;
    }
    return false;
}

std::span<const Output> outputs() {
    return kOutputs;
}

namespace {

// Each use: the command word a refusal names, its option, how a refusal
// names the command that offers an output, and how the manual says where.
struct UseFacts {
    OutputUse use;
    std::string_view command, option, refusal, offered_as;
};
constexpr UseFacts kUses[] = {
    {OutputUse::report, "report", "--format", "contest report", "contest report --format"},
    {OutputUse::compare, "compare", "--format", "contest compare", "contest compare --format"},
    {OutputUse::post, "post", "--style", "contest post", "contest post --style"},
    {OutputUse::export_, "export", "--format", "contest export", "contest export --format"},
    {OutputUse::run_summary, "run", "--summary-json", "contest run --summary-json",
     "contest run --summary-json FILE"},
    {OutputUse::latency, "latency", "--format", "contest latency", "contest latency --format"},
    {OutputUse::trend, "history page", "--out", "contest history page", "contest history page"},
    // Text alone, so no option chooses it.
    {OutputUse::history_list, "history list", "", "contest history list", "contest history list"},
    {OutputUse::history_show, "history show", "", "contest history show", "contest history show"},
    {OutputUse::history_changes, "history changes", "", "contest history changes",
     "contest history changes"},
    {OutputUse::history_triage, "history triage", "", "contest history triage",
     "contest history triage"},
    {OutputUse::history_hosts, "history hosts", "", "contest history hosts",
     "contest history hosts"},
    {OutputUse::bisection, "bisect", "", "contest bisect", "contest bisect"},
    {OutputUse::track_status, "track --status", "", "contest track --status",
     "contest track --status"},
    {OutputUse::track_mail, "track", "", "contest track's mails", "contest track's mails"},
    {OutputUse::boot_status, "run --boot-status", "", "contest run --boot-status",
     "contest run --boot-status"},
    {OutputUse::loads_list, "loads", "", "contest loads", "contest loads"},
    {OutputUse::load_work, "load", "--format", "contest load", "contest load --format"},
};

const UseFacts& facts_of(OutputUse use) {
    for (const UseFacts& f : kUses)
        if (f.use == use) return f;
    return kUses[0];  // every use is in the table
}

}  // namespace

std::string_view output_option(OutputUse use) {
    return facts_of(use).option;
}

std::string offered_where(const Output& o) {
    std::string out;
    for (const UseFacts& f : kUses)
        if (o.offered_by(f.use)) out += (out.empty() ? "" : ", ") + std::string(f.offered_as);
    return out;
}

std::string output_names(OutputUse use, std::string_view separator,
                         std::string_view last_separator) {
    std::vector<std::string_view> names;
    for (const Output& o : kOutputs)
        if (o.offered_by(use)) names.push_back(o.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out += i + 1 == names.size() ? last_separator : separator;
        out += names[i];
    }
    return out;
}

std::string outputs_help(OutputUse use) {
    std::string out;
    for (const Output& o : kOutputs) {
        if (!o.offered_by(use)) continue;
        if (!out.empty()) out += "; ";
        out += std::string(o.name) + ": " + std::string(o.what);
    }
    return out;
}

namespace {

// The first command that offers an output, for a refusal naming where it is.
std::string_view command_of(const Output& o) {
    for (const UseFacts& f : kUses)
        if (o.offered_by(f.use)) return f.refusal;
    return "?";
}

}  // namespace

const Output& find_output(const std::string& name, OutputUse use) {
    std::string text(output_option(use));  // appended: GCC 12 -O3 warns on "literal" + temporary
    text += " ";
    text += printable(name);
    for (const Output& o : kOutputs) {
        if (o.name != name) continue;
        if (o.offered_by(use)) return o;
        text += ": ";
        text += use == OutputUse::report && o.compare ? "a comparison's shape, for contest compare"
                                                      : "for " + std::string(command_of(o));
        text += " (";
        text += facts_of(use).command;
        text += ": ";
        text += output_names(use);
        text += ")";
        throw UsageError(text);
    }
    text += use == OutputUse::post ? ": unknown style (" : ": unknown format (";
    text += output_names(use);
    text += ")";
    throw UsageError(text);
}

std::string format_compare(const ReportModel& model, const std::string& format) {
    return find_output(format, OutputUse::compare).compare(model);
}

}  // namespace contest
