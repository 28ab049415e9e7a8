#include "contest/report/exporters.h"

#include "contest/report/format_compare.h"
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

const Exporter kExporters[] = {
    {"text", format_text, compare_text}, {"markdown", format_markdown, compare_markdown},
    {"csv", format_csv, compare_csv},    {"json", format_json, compare_json},
    {"html", format_html, compare_html},
};

}  // namespace

std::span<const Exporter> exporters() {
    return kExporters;
}

std::string exporter_names() {
    std::string names;
    for (std::size_t i = 0; i < std::size(kExporters); ++i) {
        if (i) names += i + 1 == std::size(kExporters) ? " or " : ", ";
        names += kExporters[i].name;
    }
    return names;
}

const Exporter& find_exporter(const std::string& name) {
    for (const Exporter& e : kExporters)
        if (e.name == name) return e;
    std::string text = "--format ";  // appended: GCC 12 -O3 warns on "literal" + temporary
    text += name;
    text += ": unknown format (";
    text += exporter_names();
    text += ")";
    throw UsageError(text);
}

}  // namespace contest
