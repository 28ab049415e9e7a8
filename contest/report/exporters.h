#pragma once
// The output formats of `contest report` and `contest compare`, in one table:
// each format is a name and its renderers, so the formats are listed in one
// place and --format's help and its check read that list.
#include <span>
#include <string>
#include <string_view>

#include "contest/analysis/report_model.h"
#include "contest/report/report_options.h"

namespace contest {

struct Exporter {
    std::string_view name;
    // `contest report`: every label, one block per load; null for a shape
    // that only a comparison has (lkp, normalized).
    std::string (*report)(const ReportModel& model, const ReportOptions& options);
    // `contest compare`: the model holds exactly two labels, the baseline first.
    std::string (*compare)(const ReportModel& model);
};

// In the order --help names them; the first is the default.
std::span<const Exporter> exporters();

enum class ExporterUse { report, compare };

// The exporter called `name` that `use` has; a UsageError naming --format
// and the formats there are otherwise.
const Exporter& find_exporter(const std::string& name, ExporterUse use = ExporterUse::report);

// "text, markdown, csv or json": the formats `use` has, as help and errors
// name them.
std::string exporter_names(ExporterUse use = ExporterUse::report);

// The comparison in the exporter called `format`; anything else is a
// UsageError.
std::string format_compare(const ReportModel& model, const std::string& format = "text");

}  // namespace contest
