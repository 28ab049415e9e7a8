#include "contest/report/exporters.h"

#include <string_view>
#include <vector>

#include "contest/report/format_compare.h"
#include "contest/report/post_lkp.h"
#include "contest/report/post_normalized.h"
#include "contest/report/post_parts.h"
#include "contest/sys/errors.h"

namespace contest {

// Each format's file defines its report renderer; this is the one place that
// lists the formats.
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

const Exporter kExporters[] = {
    {"text", format_text, compare_text},
    {"markdown", format_markdown, compare_markdown},
    {"csv", format_csv, compare_csv},
    {"json", format_json, compare_json},
    {"html", format_html, compare_html},
    {"lkp", nullptr, compare_lkp},
    {"normalized", nullptr, compare_normalized},
};

bool has(const Exporter& e, ExporterUse use) {
    return use == ExporterUse::compare || e.report;
}

}  // namespace

std::span<const Exporter> exporters() {
    return kExporters;
}

std::string exporter_names(ExporterUse use) {
    std::vector<std::string_view> names;
    for (const Exporter& e : kExporters)
        if (has(e, use)) names.push_back(e.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

const Exporter& find_exporter(const std::string& name, ExporterUse use) {
    std::string text = "--format ";  // appended: GCC 12 -O3 warns on "literal" + temporary
    text += name;
    for (const Exporter& e : kExporters) {
        if (e.name != name) continue;
        if (has(e, use)) return e;
        text += ": a comparison's shape, for contest compare (report: ";
        text += exporter_names(use);
        text += ")";
        throw UsageError(text);
    }
    text += ": unknown format (";
    text += exporter_names(use);
    text += ")";
    throw UsageError(text);
}

std::string format_compare(const ReportModel& model, const std::string& format) {
    return find_exporter(format, ExporterUse::compare).compare(model);
}

}  // namespace contest
