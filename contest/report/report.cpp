#include "contest/report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "contest/sys/errors.h"
#include "contest/report/formats.h"
#include "contest/report/report_model.h"
#include "contest/sys/text.h"

namespace contest {

std::string fixed(double value, int decimals) {
    if (!std::isfinite(value)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    // "-0.0" says a sign the number does not have.
    if (buf[0] == '-' && std::strtod(buf, nullptr) == 0) return buf + 1;
    return buf;
}

std::string format_p(double p) {
    if (!std::isfinite(p)) return "-";
    if (p < 0.0001) return "<0.0001";
    return fixed(p, 4);
}

std::string signed_percent(double pct) {
    if (!std::isfinite(pct)) return "-";
    const std::string digits = fixed(pct, 1);
    return (digits[0] == '-' || digits == "0.0" ? "" : "+") + digits + "%";
}

int time_decimals(const ReportModel& model) {
    for (const auto& block : model.blocks)
        for (const auto& cell : block.cells)
            if (cell.time.n && cell.time.mean < 10) return 2;
    return 1;
}

int loads_decimals(const LoadBlock& block) {
    for (const auto& cell : block.cells)
        if (std::fabs(cell.load_units.mean) >= 10000) return 0;
    return 1;
}

std::string unit_description(const LoadBlock& block) {
    return block.unit.empty() ? "none (no load runs)" : block.unit;
}

std::string significance_mark(const Cell& cell) {
    if (!cell.versus) return "";
    if (!cell.versus->judged) return "?";
    return cell.versus->significant ? "*" : "";
}

std::string significance_legend(const ReportModel& model) {
    if (model.labels.size() < 2) return "";
    char alpha[32];
    std::snprintf(alpha, sizeof alpha, "%g", model.alpha);
    std::string legend = "* Time differs from the baseline " + model.baseline +
                         " beyond noise (Welch's t-test, p < " + alpha + ")";
    if (model.any_unjudged())
        legend += "; ? fewer than " + std::to_string(kMinRunsForSignificance) +
                  " runs on a side, not judged";
    return legend;
}

namespace {

// Columns are measured in characters, not bytes: "±" is two bytes of UTF-8.
std::size_t display_width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

}  // namespace

std::vector<std::string> align_columns(const std::vector<std::vector<std::string>>& rows,
                                       const std::vector<bool>& right) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max(widths[i], display_width(row[i]));
    }
    std::vector<std::string> lines;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i) line += "  ";
            const std::string pad(widths[i] - display_width(row[i]), ' ');
            line += (i < right.size() && right[i]) ? pad + row[i] : row[i] + pad;
        }
        line.erase(line.find_last_not_of(' ') + 1);
        lines.push_back(std::move(line));
    }
    return lines;
}

std::string six_digits(double value) {
    if (!std::isfinite(value)) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
}

std::vector<ResultFile> read_results_or_fail(const std::vector<std::string>& paths) {
    std::vector<std::filesystem::path> fs_paths(paths.begin(), paths.end());
    std::vector<std::string> bad;
    auto files = read_result_paths(fs_paths, bad);
    if (files.empty()) {
        if (bad.size() == 1) throw UsageError(bad.front());
        for (const auto& b : bad) std::cerr << "contest: " << b << "\n";
        const std::string where = join(paths, ", ");
        throw UsageError(bad.empty() ? "no result files (*.json) in " + where
                                     : "no readable result file in " + where);
    }
    for (const auto& b : bad) std::cerr << "contest: skipping " << b << "\n";
    return files;
}

std::string render_report(const std::vector<ResultFile>& files, const ReportOptions& options) {
    // Check the format before the work, so a typo fails fast and plainly.
    std::string (*exporter)(const ReportModel&, const ReportOptions&) = nullptr;
    if (options.format == "text")
        exporter = format_text;
    else if (options.format == "markdown")
        exporter = format_markdown;
    else if (options.format == "csv")
        exporter = format_csv;
    else if (options.format == "json")
        exporter = format_json;
    else
        throw UsageError("--format " + options.format +
                         ": unknown format (text, markdown, csv or json)");
    if (!(options.alpha > 0 && options.alpha < 1))
        throw UsageError("--alpha must be between 0 and 1");
    const ReportModel model = build_report_model(files, options);
    if (options.print_warnings)
        for (const auto& w : model.warnings) std::cerr << "contest: warning: " << w << "\n";
    return exporter(model, options);
}

}  // namespace contest
